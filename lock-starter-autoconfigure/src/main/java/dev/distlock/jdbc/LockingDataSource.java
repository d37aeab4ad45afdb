package dev.distlock.jdbc;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * Where the JDBC backend's connections come from. Locking borrows straight from the pool,
 * never through a {@link TransactionAwareDataSourceProxy} (its connections join the
 * caller's transaction, so a lock row would be invisible to others until commit and
 * vanish on rollback). The PostgreSQL listening connection is opened outside the pool
 * where the pool can be looked into (HikariCP), since it is held for the provider's life.
 */
final class LockingDataSource {

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			LockingDataSource.class.getClassLoader());

	private LockingDataSource() {
	}

	/**
	 * The data source locking uses: a {@code TransactionAwareDataSourceProxy}, also
	 * behind other delegating data sources, is replaced by its target.
	 * @param dataSource the configured data source
	 * @return the data source to borrow from
	 */
	static DataSource unwrap(DataSource dataSource) {
		DataSource current = dataSource;
		for (int depth = 0; depth < 10; depth++) {
			if (current instanceof TransactionAwareDataSourceProxy proxy) {
				DataSource target = proxy.getTargetDataSource();
				return (target != null) ? unwrap(target) : dataSource;
			}
			if (current instanceof DelegatingDataSource delegating && delegating.getTargetDataSource() != null) {
				current = delegating.getTargetDataSource();
			}
			else {
				return dataSource;
			}
		}
		return dataSource;
	}

	/**
	 * Where the listening connection comes from: a data source given for it, else the
	 * settings of a HikariCP pool, else the pool itself (one of its connections then
	 * stays borrowed for the provider's life).
	 * @param dataSource the locking data source
	 * @param listenerDataSource an unpooled data source for it, or {@code null}
	 * @return the connection source
	 */
	static PostgresNotifier.ConnectionSource listenerConnections(DataSource dataSource,
			@Nullable DataSource listenerDataSource) {
		if (listenerDataSource != null) {
			return listenerDataSource::getConnection;
		}
		if (HIKARI_PRESENT) {
			PostgresNotifier.ConnectionSource unpooled = Hikari.unpooled(dataSource);
			if (unpooled != null) {
				return unpooled;
			}
		}
		return dataSource::getConnection;
	}

	/** Kept apart so that HikariCP is only loaded when present. */
	private static final class Hikari {

		static PostgresNotifier.@Nullable ConnectionSource unpooled(DataSource dataSource) {
			com.zaxxer.hikari.HikariDataSource hikari;
			try {
				if (!dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) {
					return null;
				}
				hikari = dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class);
			}
			catch (SQLException ex) {
				return null;
			}
			DataSource configured = hikari.getDataSource();
			String username = hikari.getUsername();
			String password = hikari.getPassword();
			if (configured != null) {
				return (username != null) ? () -> configured.getConnection(username, password)
						: configured::getConnection;
			}
			String url = hikari.getJdbcUrl();
			if (url == null) {
				return null;
			}
			Properties properties = new Properties();
			properties.putAll(hikari.getDataSourceProperties());
			if (username != null) {
				properties.setProperty("user", username);
			}
			if (password != null) {
				properties.setProperty("password", password);
			}
			return () -> DriverManager.getConnection(url, properties);
		}

	}

}
