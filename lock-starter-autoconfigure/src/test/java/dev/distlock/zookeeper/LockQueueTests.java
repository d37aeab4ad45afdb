package dev.distlock.zookeeper;

import java.util.List;

import dev.distlock.core.LockType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which waiters may take the lock on the deletion event of the node they watch, without
 * reading the queue again: only those whom that node alone blocks in the snapshot.
 */
class LockQueueTests {

	private static LockQueue.Position position(String own, LockType type, int permits, String... children) {
		return LockQueue.position(LockQueue.sorted(List.of(children)), own, type, permits);
	}

	@Test
	void secondInAMutexQueueHoldsOnceTheFirstIsGoneButTheThirdDoesNot() {
		LockQueue.Position second = position("lock-0000000002", LockType.MUTEX, 1, "lock-0000000001", "lock-0000000002",
				"lock-0000000003");
		assertThat(second.granted()).isFalse();
		assertThat(second.watch()).containsExactly("lock-0000000001");
		assertThat(second.grantedWhenGone()).isTrue();
		LockQueue.Position third = position("lock-0000000003", LockType.MUTEX, 1, "lock-0000000001", "lock-0000000002",
				"lock-0000000003");
		assertThat(third.watch()).containsExactly("lock-0000000002");
		assertThat(third.grantedWhenGone()).isFalse();
		assertThat(position("lock-0000000001", LockType.MUTEX, 1, "lock-0000000001", "lock-0000000002"))
			.isEqualTo(LockQueue.Position.GRANTED);
	}

	@Test
	void readerHoldsOnceItsWriterIsGoneOnlyIfNoOtherWriterPrecedesIt() {
		LockQueue.Position afterOneWriter = position("read-0000000003", LockType.READ, 1, "write-0000000001",
				"read-0000000002", "read-0000000003");
		assertThat(afterOneWriter.watch()).containsExactly("write-0000000001");
		assertThat(afterOneWriter.grantedWhenGone()).isTrue();
		LockQueue.Position afterTwoWriters = position("read-0000000004", LockType.READ, 1, "write-0000000001",
				"read-0000000002", "write-0000000003", "read-0000000004");
		assertThat(afterTwoWriters.watch()).containsExactly("write-0000000003");
		assertThat(afterTwoWriters.grantedWhenGone()).isFalse();
	}

	@Test
	void writerBehindReadersWaitsForItsPredecessorOnly() {
		LockQueue.Position writer = position("write-0000000003", LockType.WRITE, 1, "read-0000000001",
				"read-0000000002", "write-0000000003");
		assertThat(writer.watch()).containsExactly("read-0000000002");
		assertThat(writer.grantedWhenGone()).isFalse();
	}

	@Test
	void semaphoreWaitersWithSeveralPermitsAlwaysReadTheQueueAgain() {
		LockQueue.Position first = position("permit-0000000003", LockType.SEMAPHORE, 2, "permit-0000000001",
				"permit-0000000002", "permit-0000000003", "permit-0000000004");
		assertThat(first.watch()).containsExactly("permit-0000000001", "permit-0000000002");
		assertThat(first.grantedWhenGone()).isFalse();
		LockQueue.Position later = position("permit-0000000004", LockType.SEMAPHORE, 2, "permit-0000000001",
				"permit-0000000002", "permit-0000000003", "permit-0000000004");
		assertThat(later.grantedWhenGone()).isFalse();
		LockQueue.Position onePermit = position("permit-0000000002", LockType.SEMAPHORE, 1, "permit-0000000001",
				"permit-0000000002");
		assertThat(onePermit.grantedWhenGone()).isTrue();
	}

}
