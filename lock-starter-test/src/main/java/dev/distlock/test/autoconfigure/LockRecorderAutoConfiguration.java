package dev.distlock.test.autoconfigure;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.test.LockRecorder;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Test auto-configuration of a {@link LockRecorder}, imported by
 * {@link AutoConfigureLockRecorder}; the core's {@code LockTemplate} picks it up as one
 * of its listeners.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class)
public final class LockRecorderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockRecorder lockRecorder() {
		return new LockRecorder();
	}

}
