package dev.distlock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.fault.FaultHistory.Call;
import dev.distlock.fault.FaultHistory.Outcome;

/**
 * Judges a run's history against what the docs promise, and measures it:
 * <ul>
 * <li><b>overlapping holds</b>: two processes inside the guarded method at once. Allowed
 * only when one of the two was told ({@code LockLostException}: a holder that stopped
 * running past its lease, which README's "Guarantees" names) or the run's fault is one
 * the docs name as able to break exclusion unnoticed (a failover that loses the last
 * writes); any other overlap is a violation;</li>
 * <li><b>fencing</b>: accepted fenced writes in the resource's order must carry strictly
 * increasing tokens, and a hold requested after another ended must carry a greater token
 * (never violated);</li>
 * <li><b>crash recovery</b>: from the kill of a holder to the next hold by another
 * process, at most the bound;</li>
 * <li><b>hung calls</b>: no acquisition (call to lock or failure) longer than wait + one
 * client timeout (+ 10 % and scheduling slack), leaving out calls of a process the test
 * had paused;</li>
 * <li><b>recovery after healing</b>: every process still alive completes a call with an
 * accepted fenced write after the fault healed, without a restart.</li>
 * </ul>
 */
final class FaultChecker {

	private static final long SLACK_NANOS = Duration.ofMillis(1500).toNanos();

	private final FaultHistory history;

	private final List<FaultRun.Write> writes;

	private final Map<String, Long> deaths;

	private final Map<String, List<long[]>> pauses;

	private final List<String> violations = new ArrayList<>();

	private final List<String> notes = new ArrayList<>();

	private int allowedOverlaps;

	private int staleGrants;

	private long leaseNanos = Long.MAX_VALUE;

	private long maxRecoveryNanos = -1;

	FaultChecker(FaultHistory history, List<FaultRun.Write> writes, Map<String, Long> deaths,
			Map<String, List<long[]>> pauses) {
		this.history = history;
		this.writes = writes;
		this.deaths = deaths;
		this.pauses = pauses;
	}

	List<String> violations() {
		return this.violations;
	}

	List<String> notes() {
		return this.notes;
	}

	int allowedOverlaps() {
		return this.allowedOverlaps;
	}

	/**
	 * Overlaps whose told holder was granted less than a lease before the other: its
	 * lease had run out before the grant reached it (a reply delayed past the lease, a
	 * stalled JVM), yet its work ran. Counted apart from the overlaps a lease running out
	 * explains.
	 */
	int staleGrants() {
		return this.staleGrants;
	}

	/**
	 * Sets the lease the children hold with, which tells stale grants from leases that
	 * ran out while held.
	 */
	FaultChecker lease(Duration lease) {
		this.leaseNanos = lease.toNanos();
		return this;
	}

	/** The longest recovery measured (crash to next hold, heal to recovered), or -1. */
	long maxRecoveryNanos() {
		return this.maxRecoveryNanos;
	}

	void recovery(long nanos) {
		this.maxRecoveryNanos = Math.max(this.maxRecoveryNanos, nanos);
	}

	/**
	 * Checks overlaps; {@code unnoticedAllowed}: the fault is one where the docs allow an
	 * unnoticed overlap.
	 */
	void checkOverlaps(boolean unnoticedAllowed) {
		List<Call> held = this.history.calls().stream().filter(Call::held).toList();
		for (int i = 0; i < held.size(); i++) {
			for (int j = i + 1; j < held.size(); j++) {
				Call a = held.get(i);
				Call b = held.get(j);
				if (a.worker().equals(b.worker())) {
					continue;
				}
				long aEnd = a.holdEnd(death(a.worker()));
				long bEnd = b.holdEnd(death(b.worker()));
				if (a.acquired() < bEnd && b.acquired() < aEnd) {
					boolean told = a.outcome() == Outcome.LOST || b.outcome() == Outcome.LOST;
					if (unnoticedAllowed) {
						this.allowedOverlaps++;
						this.notes.add("overlap (allowed by the docs for this fault): " + a + " and " + b);
					}
					else if (Math.max(a.acquired(), b.acquired()) < Math.min(a.requested(), b.requested())
							+ this.leaseNanos) {
						// each backend lease lasts at least from its grant (no later than
						// the recorded acquisition) to its request + the lease (it is
						// counted from the request that was granted, never earlier): both
						// held the lock on the backend at once, which no lease running
						// out explains. (The recorded acquisition is taken after the
						// grant returned, so comparing two acquisitions alone would blame
						// a slow return, not a stale grant; LateGrantTests cover that.)
						this.staleGrants++;
						this.violations.add("overlap, both granted within each other's lease: " + a + " and " + b);
					}
					else if (told) {
						this.allowedOverlaps++;
						this.notes.add("overlap (holder told its lease was lost): " + a + " and " + b);
					}
					else {
						this.violations.add("overlapping holds, nobody told: " + a + " and " + b);
					}
				}
			}
		}
	}

	/** Checks the fencing tokens and the resource's accepted writes. */
	void checkFencing() {
		long last = Long.MIN_VALUE;
		int refused = 0;
		for (FaultRun.Write write : this.writes) {
			if (!write.fenced()) {
				continue;
			}
			if (!write.accepted()) {
				refused++;
				continue;
			}
			if (write.token() <= last) {
				this.violations.add("fenced write out of order: token " + write.token() + " by " + write.worker()
						+ " accepted after token " + last);
			}
			last = write.token();
		}
		long unfencedMax = Long.MIN_VALUE;
		int stale = 0;
		for (FaultRun.Write write : this.writes) {
			if (!write.fenced()) {
				if (write.token() < unfencedMax) {
					stale++;
				}
				unfencedMax = Math.max(unfencedMax, write.token());
			}
		}
		if (refused > 0 || stale > 0) {
			this.notes.add(refused + " fenced write(s) refused; " + stale + " unfenced write(s) overwrote a newer one");
		}
		List<Call> held = this.history.calls().stream().filter(Call::held).toList();
		Map<Long, Call> byToken = new HashMap<>();
		for (Call b : held) {
			Call same = byToken.put(b.token(), b);
			if (same != null) {
				this.violations.add("one fencing token for two holds: " + same + " and " + b);
			}
			for (Call a : held) {
				if (a.ended() >= 0 && a.ended() < b.requested() && a.token() >= b.token()) {
					this.violations.add("token did not increase: " + b + " requested after " + a + " ended");
				}
			}
		}
	}

	/**
	 * Checks that no acquisition took longer than {@code bound} (+ 10 % and slack),
	 * outside pauses; a call still waiting when the workers were stopped counts until
	 * {@code stoppedAt}.
	 */
	void checkNoHang(Duration bound, long stoppedAt) {
		long limit = bound.toNanos() + bound.toNanos() / 10 + SLACK_NANOS;
		long longest = 0;
		for (Call call : this.history.calls()) {
			long took = call.acquisitionNanos();
			if (took < 0 && !this.deaths.containsKey(call.worker())) {
				took = stoppedAt - call.requested();
			}
			if (!paused(call)) {
				longest = Math.max(longest, took);
			}
			if (took > limit && !paused(call)) {
				this.violations.add("call hung " + FaultHistory.ms(took) + " (bound " + bound.toMillis() + "ms): "
						+ call + " " + call.detail());
			}
			long release = (call.finished() >= 0) ? call.finished() - call.ended() : stoppedAt - call.ended();
			if (call.ended() >= 0 && !this.deaths.containsKey(call.worker()) && release > limit && !paused(call)) {
				this.violations.add("release hung " + FaultHistory.ms(release) + ": " + call);
			}
		}
		this.notes.add("longest acquisition " + FaultHistory.ms(longest) + " (bound " + bound.toMillis() + "ms)");
	}

	/**
	 * Checks that another process held the lock within {@code bound} (+ slack) of a
	 * holder's kill.
	 * @param killed the killed process
	 * @param killedAt nano time of the kill
	 * @param bound the promised bound
	 */
	void checkTakeover(String killed, long killedAt, Duration bound) {
		Call next = this.history.calls()
			.stream()
			.filter((call) -> !call.worker().equals(killed) && call.held() && call.acquired() > killedAt)
			.min(java.util.Comparator.comparingLong(Call::acquired))
			.orElse(null);
		if (next == null) {
			this.violations.add("nobody held the lock after " + killed + " was killed");
			return;
		}
		long took = next.acquired() - killedAt;
		recovery(took);
		if (took > bound.toNanos() + SLACK_NANOS / 3) {
			this.violations.add("killed holder's lock free only after " + FaultHistory.ms(took) + " (bound "
					+ bound.toMillis() + "ms + scheduling)");
		}
	}

	/**
	 * Checks that each worker completed a call with an accepted fenced write after
	 * {@code healedAt}, and records the slowest one's time as a recovery.
	 */
	void checkRecovered(long healedAt, List<String> workers) {
		for (String worker : workers) {
			Call first = this.history.calls(worker)
				.stream()
				.filter((call) -> call.requested() > healedAt && call.outcome() == Outcome.OK
						&& Boolean.TRUE.equals(call.accepted()))
				.findFirst()
				.orElse(null);
			if (first == null) {
				this.violations.add(worker + " did not recover after the fault healed: "
						+ this.history.calls(worker)
							.stream()
							.filter((c) -> c.requested() > healedAt)
							.limit(5)
							.toList());
			}
			else {
				recovery(first.finished() - healedAt);
			}
		}
	}

	private long death(String worker) {
		return this.deaths.getOrDefault(worker, Long.MAX_VALUE);
	}

	private boolean paused(Call call) {
		for (long[] pause : this.pauses.getOrDefault(call.worker(), List.of())) {
			long end = (call.finished() >= 0) ? call.finished() : Long.MAX_VALUE;
			if (call.requested() < pause[1] && pause[0] < end) {
				return true;
			}
		}
		return false;
	}

}
