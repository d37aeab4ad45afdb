package dev.distlock.jdbc.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Qualifier for a {@link javax.sql.DataSource} that distlock's JDBC backend uses instead
 * of the application's primary one, for example a small pool of its own on the same
 * database. Keep the application's data source {@code @Primary} when declaring one, as
 * with Spring Boot's {@code @FlywayDataSource}.
 *
 * @since 0.1.0
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface DistlockDataSource {

}
