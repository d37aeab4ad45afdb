package dev.distlock.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Adds a {@link dev.distlock.test.LockRecorder} bean to a test's application context, on
 * whatever backend the application uses, so that the test can assert which locks a call
 * took: {@code assertThat(locks).locked("order:42")}. Put it on a {@code @SpringBootTest}
 * class.
 *
 * @since 0.1.0
 * @see AutoConfigureLocalLocks
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(LockRecorderAutoConfiguration.class)
public @interface AutoConfigureLockRecorder {

}
