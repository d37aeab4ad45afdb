package dev.distlock.jdbc.autoconfigure;

import javax.sql.DataSource;

import dev.distlock.autoconfigure.ConditionalOnLockProvider;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.jdbc.JdbcLockProvider;
import dev.distlock.jdbc.JdbcLockProviderBuilder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The JDBC lock backend ({@code distlock.provider=jdbc}) on the application's
 * {@link DataSource}, or on one marked {@link DistlockDataSource @DistlockDataSource}: a
 * {@link JdbcLockProvider} and, per {@code distlock.jdbc.initialize-schema}, the creation
 * of its table. The database type is detected from the connection's metadata (PostgreSQL,
 * MariaDB, MySQL, H2), or taken from {@code distlock.jdbc.platform}; any other database
 * fails at startup with a message saying so.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class, DataSourceScriptDatabaseInitializer.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnLockProvider("jdbc")
@EnableConfigurationProperties({ JdbcLockProperties.class, DistlockProperties.class })
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class JdbcLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	JdbcLockProvider jdbcLockProvider(@DistlockDataSource ObjectProvider<DataSource> distlockDataSource,
			ObjectProvider<DataSource> dataSource, JdbcLockProperties properties, DistlockProperties distlock,
			ObjectProvider<JdbcLockProviderBuilderCustomizer> customizers) {
		DataSource lockDataSource = distlockDataSource.getIfAvailable(dataSource::getObject);
		JdbcLockProviderBuilder builder = JdbcLockProvider.builder(lockDataSource)
			.tableName(properties.getTableName())
			.platform(properties.getPlatform())
			.fairWaiterTimeout(properties.getFairWaiterTimeout())
			.notifications(properties.isNotifications())
			.cleanupInterval(properties.getCleanupInterval())
			.cleanupBatchSize(properties.getCleanupBatchSize())
			.minLockWait(properties.getMinLockWait())
			.callTimeout(distlock.getCallTimeout());
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	@Bean
	@ConditionalOnMissingBean
	JdbcLockSchemaInitializer jdbcLockSchemaInitializer(
			@DistlockDataSource ObjectProvider<DataSource> distlockDataSource, ObjectProvider<DataSource> dataSource,
			JdbcLockProperties properties) {
		return new JdbcLockSchemaInitializer(distlockDataSource.getIfAvailable(dataSource::getObject), properties);
	}

}
