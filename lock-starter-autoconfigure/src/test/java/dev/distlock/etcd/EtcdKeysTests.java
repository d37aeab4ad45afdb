package dev.distlock.etcd;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link EtcdKeys}: keys are data, and none reaches outside its segment or
 * aliases another.
 */
class EtcdKeysTests {

	private final EtcdKeys keys = new EtcdKeys("/distlock");

	@Test
	void slashAndPercentAreEncodedSoKeysNeitherNestNorAlias() {
		assertThat(this.keys.queue("a/b", LockType.MUTEX)).isEqualTo("/distlock/lock/a%2Fb/mutex/");
		assertThat(this.keys.queue("a%2Fb", LockType.MUTEX)).isEqualTo("/distlock/lock/a%252Fb/mutex/");
		assertThat(this.keys.queue("a/mutex/x", LockType.MUTEX)).as("a key that would nest in another's queue")
			.doesNotStartWith(this.keys.queue("a", LockType.MUTEX));
		assertThat(EtcdKeys.encode("../x\u0000é")).isEqualTo("..%2Fx\u0000é");
	}

	@Test
	void readAndWriteShareOneQueueAndOtherTypesHaveTheirOwn() {
		assertThat(this.keys.queue("k", LockType.READ)).isEqualTo(this.keys.queue("k", LockType.WRITE));
		assertThat(this.keys.queue("k", LockType.MUTEX)).isNotEqualTo(this.keys.queue("k", LockType.FAIR))
			.isNotEqualTo(this.keys.queue("k", LockType.SEMAPHORE));
		assertThat(EtcdKeys.entry(this.keys.queue("k", LockType.WRITE), LockType.WRITE, "owner/1"))
			.isEqualTo("/distlock/lock/k/rw/write-owner%2F1");
	}

	@Test
	void rootEndingWithASlashOrBlankIsRefusedByName() {
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> new EtcdKeys("/locks/"))
			.withMessageContaining("distlock.etcd.root");
		assertThatExceptionOfType(LockConfigurationException.class).isThrownBy(() -> new EtcdKeys(" "))
			.withMessageContaining("distlock.etcd.root");
	}

}
