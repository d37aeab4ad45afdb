package dev.distlock.local;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The in-JVM backend's lock states, one map per lock family (READ and WRITE of a key are
 * one lock), and its fencing counter. The counter starts at the wall clock in
 * microseconds and counts one per grant: as long as the application hands out fewer than
 * a million tokens a second on average, it stays below the clock, so the next start
 * begins above every token this one handed out and fenced writes (README's fencing
 * recipe, {@code stored_token <= :token}) keep working across restarts (unless the clock
 * steps back). Microseconds keep tokens below 2^53, exact in JSON and JavaScript.
 */
final class LocalLockStore {

	/** Unused states a map keeps for the next lock of their keys. */
	static final int SWEEP_SLACK = 1024;

	// one map per lock family: READ and WRITE of a key are one lock
	@SuppressWarnings("unchecked")
	private final ConcurrentHashMap<String, LocalLockState>[] states = new ConcurrentHashMap[LockType.values().length];

	final AtomicLong fence = new AtomicLong(wallClockMicros());

	private final int[] sweepAt = new int[LockType.values().length];

	/** A crowded map is counted again about once in this many calls (a power of two). */
	static final int RECOUNT_ONE_IN = 64;

	/** Per family: whether a sweep runs (callers that find one running go on). */
	private final AtomicIntegerArray sweeping = new AtomicIntegerArray(LockType.values().length);

	/**
	 * Per family: whether the map held more than {@value #SWEEP_SLACK} states when last
	 * counted. A hint, read and written without ordering: either answer is safe.
	 */
	private final boolean[] crowded = new boolean[LockType.values().length];

	private static long wallClockMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

	LocalLockStore() {
		for (int i = 0; i < this.states.length; i++) {
			this.states[i] = new ConcurrentHashMap<>();
			this.sweepAt[i] = 2 * SWEEP_SLACK;
		}
	}

	private ConcurrentHashMap<String, LocalLockState> family(LockType type) {
		return this.states[familyIndex(type)];
	}

	private static int familyIndex(LockType type) {
		return ((type == LockType.READ) ? LockType.WRITE : type).ordinal();
	}

	LocalLockState state(String key, LockType type) {
		ConcurrentHashMap<String, LocalLockState> map = family(type);
		LocalLockState state = map.get(key);
		if (state == null) {
			LocalLockState created = new LocalLockState();
			state = map.putIfAbsent(key, created);
			return (state != null) ? state : created;
		}
		return state;
	}

	@Nullable LocalLockState existing(String key, LockType type) {
		return family(type).get(key);
	}

	/**
	 * A state that may have become unused stays for the key's next lock (a hot key
	 * allocates nothing per call) while the map holds at most {@value #SWEEP_SLACK}
	 * states; past that, the state its last user leaves goes at once, so over many keys
	 * the map stays near that size without sweeping. States left unused otherwise (a
	 * lease that ran out) are swept in bulk once a map has grown past twice what it kept
	 * at its last sweep (and at least twice {@value #SWEEP_SLACK}), so memory stays
	 * bounded at O(1) cost per call on average. One caller sweeps; callers that find a
	 * sweep running go on instead of waiting for it. Counting a map reads every one of
	 * its counter cells, which the other threads keep writing: a map found crowded is
	 * counted again only about once in {@value #RECOUNT_ONE_IN} calls (to see it shrink,
	 * or grow past the sweep mark).
	 */
	void dropIfUnused(String key, LockType type, LocalLockState state) {
		int family = familyIndex(type);
		ConcurrentHashMap<String, LocalLockState> map = this.states[family];
		int size;
		if (!this.crowded[family]) {
			size = map.size();
			if (size <= SWEEP_SLACK) {
				return;
			}
			this.crowded[family] = true;
			drop(map, key, state, System.nanoTime());
		}
		else {
			drop(map, key, state, System.nanoTime());
			if ((ThreadLocalRandom.current().nextInt() & (RECOUNT_ONE_IN - 1)) != 0) {
				return;
			}
			size = map.size();
			if (size <= SWEEP_SLACK) {
				this.crowded[family] = false;
				return;
			}
		}
		if (size > this.sweepAt[family] && this.sweeping.compareAndSet(family, 0, 1)) {
			try {
				sweep(family);
			}
			finally {
				this.sweeping.set(family, 0);
			}
		}
	}

	/** Takes a state out of its map if nobody uses it. */
	private static void drop(ConcurrentHashMap<String, LocalLockState> map, String key, LocalLockState state,
			long now) {
		synchronized (state) {
			state.purge(now);
			if (state.dead || !state.isUnused()) {
				return;
			}
			state.dead = true;
		}
		map.remove(key, state);
	}

	private void sweep(int family) {
		ConcurrentHashMap<String, LocalLockState> map = this.states[family];
		if (map.size() <= this.sweepAt[family]) {
			return;
		}
		long now = System.nanoTime();
		for (Map.Entry<String, LocalLockState> entry : map.entrySet()) {
			drop(map, entry.getKey(), entry.getValue(), now);
		}
		this.sweepAt[family] = Math.max(2 * SWEEP_SLACK, 2 * map.size());
	}

	int live() {
		long now = System.nanoTime();
		int live = 0;
		for (ConcurrentHashMap<String, LocalLockState> map : this.states) {
			for (LocalLockState state : map.values()) {
				synchronized (state) {
					state.purge(now);
					if (!state.dead && !state.isUnused()) {
						live++;
					}
				}
			}
		}
		return live;
	}

	int retained() {
		int retained = 0;
		for (ConcurrentHashMap<String, LocalLockState> map : this.states) {
			retained += map.size();
		}
		return retained;
	}

}
