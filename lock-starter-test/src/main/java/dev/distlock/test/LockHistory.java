package dev.distlock.test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.distlock.core.Lease;
import dev.distlock.core.LockType;

/**
 * A recorded history of holds (who held which lock, from when to when, with which fencing
 * token) and the checker that proves a backend kept its promises: no two exclusive holds
 * of one lock overlap, no reader overlaps a writer, a semaphore never has more holders
 * than permits, and a hold that started after another ended has a strictly greater
 * fencing token. Start is taken after the acquire returned and end before the release is
 * sent, so recorded intervals lie inside the real ones and an overlap found here is a
 * real one. Token order is judged from the time the acquire was requested: a hold
 * requested after another ended was granted after it, whatever the lock type.
 */
public final class LockHistory {

	private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();

	/**
	 * One recorded hold.
	 *
	 * @param key the lock key
	 * @param type the lock type
	 * @param permits permits of a SEMAPHORE
	 * @param token the fencing token
	 * @param holder who held it (process and thread)
	 * @param requested nano time before acquire was called
	 * @param start nano time after acquire returned
	 * @param end nano time before release
	 */
	public record Hold(String key, LockType type, int permits, long token, String holder, long requested, long start,
			long end) {

		boolean overlaps(Hold other) {
			return this.start < other.end && other.start < this.end;
		}

		@Override
		public String toString() {
			return this.type + " '" + this.key + "' token " + this.token + " by " + this.holder + " ["
					+ this.start / 1000 + "us.." + this.end / 1000 + "us]";
		}

	}

	/**
	 * Records a hold.
	 * @param lease the lease held
	 * @param permits permits of a SEMAPHORE (1 otherwise)
	 * @param holder who held it
	 * @param requested nano time before acquire was called
	 * @param start nano time after acquire returned
	 * @param end nano time before release
	 */
	public void record(Lease lease, int permits, String holder, long requested, long start, long end) {
		record(new Hold(lease.key(), lease.type(), permits, lease.fencingToken(), holder, requested, start, end));
	}

	public void record(Hold hold) {
		this.holds.add(hold);
	}

	public int size() {
		return this.holds.size();
	}

	public List<Hold> holds() {
		return new ArrayList<>(this.holds);
	}

	/**
	 * Checks the whole history.
	 * @throws AssertionError naming the offending holds
	 */
	public void assertConsistent() {
		Map<String, List<Hold>> byLock = new TreeMap<>();
		for (Hold hold : this.holds) {
			byLock.computeIfAbsent(lockOf(hold), (k) -> new ArrayList<>()).add(hold);
		}
		List<String> violations = new ArrayList<>();
		for (Map.Entry<String, List<Hold>> entry : byLock.entrySet()) {
			List<Hold> list = entry.getValue();
			list.sort(Comparator.comparingLong(Hold::start));
			checkExclusion(list, violations);
			checkPermits(list, violations);
			checkTokens(list, violations);
		}
		if (!violations.isEmpty()) {
			throw new AssertionError(violations.size() + " violation(s) in a history of " + this.holds.size()
					+ " holds:\n  " + String.join("\n  ", violations.subList(0, Math.min(20, violations.size()))));
		}
	}

	private static String lockOf(Hold hold) {
		LockType family = (hold.type() == LockType.READ) ? LockType.WRITE : hold.type();
		return family + ":" + hold.key();
	}

	private static void checkExclusion(List<Hold> list, List<String> violations) {
		for (int i = 0; i < list.size(); i++) {
			Hold a = list.get(i);
			for (int j = i + 1; j < list.size() && list.get(j).start() < a.end(); j++) {
				Hold b = list.get(j);
				boolean exclusive = a.type().isExclusive() || b.type().isExclusive();
				if (exclusive && a.overlaps(b)) {
					violations.add("overlapping holds: " + a + " and " + b);
				}
			}
		}
	}

	private static void checkPermits(List<Hold> list, List<String> violations) {
		for (Hold a : list) {
			if (a.type() != LockType.SEMAPHORE) {
				continue;
			}
			// at the start of each hold, count the holds that cover that instant
			int concurrent = 0;
			for (Hold b : list) {
				if (b.start() <= a.start() && a.start() < b.end()) {
					concurrent++;
				}
			}
			if (concurrent > a.permits()) {
				violations.add(concurrent + " holders of a " + a.permits() + "-permit semaphore at " + a);
			}
		}
	}

	private static void checkTokens(List<Hold> list, List<String> violations) {
		for (Hold b : list) {
			for (Hold a : list) {
				if (a.end() < b.requested() && a.token() >= b.token()) {
					violations.add("token did not increase: " + b + " was requested after " + a + " ended");
				}
			}
		}
	}

}
