package dev.distlock.jdbc.autoconfigure;

import javax.sql.DataSource;

import dev.distlock.core.LockTemplate;
import dev.distlock.jdbc.JdbcLatchProvider;
import dev.distlock.jdbc.JdbcLockProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code jdbc} latch on the lock provider's data source and table, imported by
 * {@code DistlockLatchAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(DataSource.class)
@ConditionalOnBean(JdbcLockProvider.class)
class JdbcLatchConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	JdbcLatchProvider jdbcLatchProvider(@DistlockDataSource ObjectProvider<DataSource> distlockDataSource,
			ObjectProvider<DataSource> dataSource, JdbcLockProperties properties, LockTemplate lockTemplate) {
		return new JdbcLatchProvider(distlockDataSource.getIfAvailable(dataSource::getObject),
				properties.getTableName(), properties.getPlatform(), lockTemplate.settings().callTimeout());
	}

}
