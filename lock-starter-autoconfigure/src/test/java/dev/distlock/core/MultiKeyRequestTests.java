package dev.distlock.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How a {@link LockRequest} of several keys is normalised and checked.
 */
class MultiKeyRequestTests {

	@Test
	void keysAreSortedAndDistinctAndJoinedIntoTheKey() {
		LockRequest request = LockRequest.builder(List.of("b", "c", "a", "b"))
			.holdAtLeast(Duration.ofSeconds(1))
			.build();
		assertThat(request.isMultiKey()).isTrue();
		assertThat(request.keys()).containsExactly("a", "b", "c");
		assertThat(request.key()).isEqualTo("a,b,c");
		LockRequest copy = request.toBuilder().waitTime(Duration.ZERO).build();
		assertThat(copy.keys()).containsExactly("a", "b", "c");
		assertThat(copy.holdAtLeast()).isEqualTo(Duration.ofSeconds(1));
		assertThat(request.toBuilder().key("x").build().isMultiKey()).as("key(..) replaces the keys").isFalse();
	}

	@Test
	void oneKeyIsAnOrdinaryRequest() {
		LockRequest request = LockRequest.builder(List.of("only", "only")).build();
		assertThat(request.isMultiKey()).isFalse();
		assertThat(request.key()).isEqualTo("only");
		assertThat(request.keys()).containsExactly("only");
		assertThat(LockRequest.of("k").keys()).containsExactly("k");
	}

	@Test
	void noKeyOrABlankOneIsRefused() {
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> LockRequest.builder(List.of()).build())
			.withMessageContaining("needs at least one key");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> LockRequest.builder(Arrays.asList("a", null)).build())
			.withMessageContaining("must not be null or blank");
		assertThatExceptionOfType(LockConfigurationException.class)
			.isThrownBy(() -> LockRequest.builder(List.of("a", " ")).build())
			.withMessageContaining("must not be null or blank");
	}

}
