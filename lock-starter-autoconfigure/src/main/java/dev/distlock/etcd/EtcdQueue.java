package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.LockType;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import org.jspecify.annotations.Nullable;

/**
 * The queue rules, applied to a snapshot of one lock's entries in creation-revision
 * order: an entry's place decides whether it holds the lock and which entries it must
 * watch to learn when that may have changed. Only entries that block the waiter are
 * watched, so a release wakes one waiter, not the herd; watches start at the revision
 * after the snapshot, so no change between the snapshot and the watch is missed.
 * <ul>
 * <li>MUTEX, FAIR, WRITE: the first entry holds; a waiter watches its predecessor.</li>
 * <li>READ: holds when no WRITE entry precedes it; a waiter watches the nearest preceding
 * WRITE entry.</li>
 * <li>SEMAPHORE: the first {@code permits} entries hold. The first waiter (exactly
 * {@code permits} entries ahead) watches every holder; later waiters watch their
 * predecessor, which announces its grant by writing its entry again, so each waiter moves
 * on to watching the holders once it is first.</li>
 * </ul>
 */
final class EtcdQueue {

	private static final byte[] WRITE_MARKER = (EtcdKeys.marker(LockType.WRITE) + "-").getBytes(StandardCharsets.UTF_8);

	private EtcdQueue() {
	}

	/**
	 * Where an entry stands.
	 *
	 * @param granted whether the entry holds the lock
	 * @param watch the entries to watch while waiting
	 * @param announce whether a newly granted entry must write itself again to wake a
	 * successor that watches it
	 * @param token the entry's creation revision
	 */
	record Position(boolean granted, List<ByteSequence> watch, boolean announce, long token) {

	}

	/**
	 * The position of an entry in a snapshot of its queue.
	 * @param entries the queue's entries, sorted by creation revision
	 * @param own the entry's key
	 * @param queueLength the length of the queue prefix, in bytes
	 * @param type the entry's lock type
	 * @param permits the permits of a SEMAPHORE
	 * @return the position, or {@code null} if the entry is not in the snapshot (it was
	 * deleted)
	 */
	static @Nullable Position position(List<KeyValue> entries, ByteSequence own, int queueLength, LockType type,
			int permits) {
		int index = -1;
		for (int i = 0; i < entries.size(); i++) {
			if (entries.get(i).getKey().equals(own)) {
				index = i;
				break;
			}
		}
		if (index < 0) {
			return null;
		}
		long token = entries.get(index).getCreateRevision();
		return switch (type) {
			case MUTEX, FAIR, WRITE -> (index == 0) ? granted(token, false) : waitFor(entries.get(index - 1), token);
			case READ -> read(entries, index, queueLength, token);
			case SEMAPHORE -> semaphore(entries, index, permits, token);
		};
	}

	private static Position granted(long token, boolean announce) {
		return new Position(true, List.of(), announce, token);
	}

	private static Position waitFor(KeyValue entry, long token) {
		return new Position(false, List.of(entry.getKey()), false, token);
	}

	private static Position read(List<KeyValue> entries, int index, int queueLength, long token) {
		for (int i = index - 1; i >= 0; i--) {
			if (isWrite(entries.get(i).getKey().getBytes(), queueLength)) {
				return waitFor(entries.get(i), token);
			}
		}
		return granted(token, false);
	}

	private static boolean isWrite(byte[] key, int queueLength) {
		if (key.length < queueLength + WRITE_MARKER.length) {
			return false;
		}
		for (int i = 0; i < WRITE_MARKER.length; i++) {
			if (key[queueLength + i] != WRITE_MARKER[i]) {
				return false;
			}
		}
		return true;
	}

	private static Position semaphore(List<KeyValue> entries, int index, int permits, long token) {
		if (permits == 1) {
			return (index == 0) ? granted(token, false) : waitFor(entries.get(index - 1), token);
		}
		if (index < permits) {
			return granted(token, index < entries.size() - 1);
		}
		if (index == permits) {
			List<ByteSequence> holders = new ArrayList<>(permits);
			for (int i = 0; i < permits; i++) {
				holders.add(entries.get(i).getKey());
			}
			return new Position(false, holders, false, token);
		}
		return waitFor(entries.get(index - 1), token);
	}

}
