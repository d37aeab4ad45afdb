package dev.distlock.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.PropertyMapping;

/**
 * Runs a test's application on the in-JVM {@code local} lock provider, whatever backend
 * its class path and configuration would otherwise choose (no Redis, database or
 * ZooKeeper needed), and adds a {@link dev.distlock.test.LockRecorder} bean. Put it on a
 * {@code @SpringBootTest} class. It sets {@code distlock.provider=local}, so the
 * backends' auto-configurations back off.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@AutoConfigureLockRecorder
@PropertyMapping("distlock")
public @interface AutoConfigureLocalLocks {

	/**
	 * The provider the test's locks use; mapped to {@code distlock.provider}. Leave it as
	 * {@code local}.
	 * @return the provider name
	 */
	String provider() default "local";

}
