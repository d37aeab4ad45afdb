package dev.distlock.test;

import dev.distlock.core.LockType;
import dev.distlock.test.LockHistory.Hold;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The history checker must see every kind of violation, or the contract test proves
 * nothing.
 */
class LockHistoryTests {

	private static Hold hold(LockType type, long token, long start, long end) {
		return new Hold("k", type, 2, token, "h" + token, start, start, end);
	}

	@Test
	void overlappingExclusiveHoldsAreReported() {
		LockHistory history = new LockHistory();
		history.record(hold(LockType.MUTEX, 1, 0, 10));
		history.record(hold(LockType.MUTEX, 2, 9, 20));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(history::assertConsistent)
			.withMessageContaining("overlapping holds");
	}

	@Test
	void readerOverlappingAWriterIsReported() {
		LockHistory history = new LockHistory();
		history.record(hold(LockType.WRITE, 1, 0, 10));
		history.record(hold(LockType.READ, 2, 5, 20));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(history::assertConsistent)
			.withMessageContaining("overlapping holds");
	}

	@Test
	void overlappingReadersAndDistinctLocksAreFine() {
		LockHistory history = new LockHistory();
		history.record(hold(LockType.READ, 1, 0, 10));
		history.record(hold(LockType.READ, 2, 5, 20));
		history.record(new Hold("other", LockType.MUTEX, 1, 3, "x", 0, 0, 30));
		history.record(hold(LockType.WRITE, 4, 21, 30));
		assertThatCode(history::assertConsistent).doesNotThrowAnyException();
	}

	@Test
	void moreHoldersThanPermitsIsReported() {
		LockHistory history = new LockHistory();
		history.record(hold(LockType.SEMAPHORE, 1, 0, 10));
		history.record(hold(LockType.SEMAPHORE, 2, 1, 10));
		history.record(hold(LockType.SEMAPHORE, 3, 2, 10));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(history::assertConsistent)
			.withMessageContaining("3 holders of a 2-permit semaphore");
	}

	@Test
	void tokenThatDoesNotIncreaseIsReported() {
		LockHistory history = new LockHistory();
		history.record(hold(LockType.MUTEX, 5, 0, 10));
		history.record(hold(LockType.MUTEX, 5, 11, 20));
		assertThatExceptionOfType(AssertionError.class).isThrownBy(history::assertConsistent)
			.withMessageContaining("token did not increase");
	}

}
