package dev.distlock.sample.page;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.core.Lease;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import dev.distlock.sample.InstanceName;
import dev.distlock.sample.SampleProperties;
import dev.distlock.sample.page.LockCall.State;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Records every lock call of this instance, as a {@link LockListener} of its
 * {@code LockTemplate}: who asked for which key, when it was granted, with which fencing
 * token, when the work under it ended, when it was released, and the calls that gave up.
 * Keeps the last {@code sample.timeline.capacity} calls (300 by default) in memory; the
 * page at {@code /} draws them.
 */
@Component
public class LockTimeline implements LockListener {

	private final ThreadLocal<@Nullable Call> acquiring = new ThreadLocal<>();

	private final ArrayDeque<Call> calls = new ArrayDeque<>();

	private final Map<String, Call> held = new HashMap<>();

	private final InstanceName instance;

	private final int capacity;

	private final double originMillis = System.currentTimeMillis();

	private final long originNanos = System.nanoTime();

	private long lastId;

	@Autowired
	LockTimeline(InstanceName instance, SampleProperties properties) {
		this(instance, properties.timeline().capacity());
	}

	LockTimeline(InstanceName instance, int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("sample.timeline.capacity must be at least 1, not " + capacity);
		}
		this.instance = instance;
		this.capacity = capacity;
	}

	/**
	 * The calls recorded, oldest first.
	 * @return a snapshot
	 */
	public synchronized List<LockCall> calls() {
		List<LockCall> snapshot = new ArrayList<>(this.calls.size());
		for (Call call : this.calls) {
			snapshot.add(call.snapshot());
		}
		return snapshot;
	}

	/**
	 * A listener for a second lock template in this instance (one that plays another
	 * instance of the application), recording into this timeline under its own label.
	 * @param label who the template's calls are from
	 * @return the listener to give that template
	 */
	public LockListener as(String label) {
		return new Recorder(label);
	}

	@Override
	public void acquiring(LockRequest request, String provider) {
		new Recorder(null).acquiring(request, provider);
	}

	@Override
	public void acquired(Lease lease, String provider, long waitNanos) {
		granted(lease);
	}

	@Override
	public void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
		gaveUp(request, error);
	}

	@Override
	public void released(Lease lease, String provider, long heldNanos) {
		double now = now();
		synchronized (this) {
			Call call = this.held.remove(holdKey(lease.key(), token(lease)));
			if (call != null) {
				call.releasedAt = now;
				call.state = State.RELEASED;
			}
		}
	}

	@Override
	public void lost(Lease lease, String provider, String reason) {
		double now = now();
		synchronized (this) {
			Call call = this.held.get(holdKey(lease.key(), token(lease)));
			if (call != null && call.lostAt == null) {
				call.lostAt = now;
				call.detail = reason;
			}
		}
	}

	/**
	 * The guarded work of a held lease starts (called under the lock, see
	 * {@link LockedWorkMarker}).
	 */
	void workStarted(Lease lease) {
		double now = now();
		synchronized (this) {
			Call call = this.held.get(holdKey(lease.key(), token(lease)));
			if (call != null) {
				call.workStartedAt = now;
			}
		}
	}

	/** The guarded work of a held lease ended; its release comes next. */
	void workEnded(Lease lease) {
		double now = now();
		synchronized (this) {
			Call call = this.held.get(holdKey(lease.key(), token(lease)));
			if (call != null) {
				call.workEndedAt = now;
			}
		}
	}

	private void granted(Lease lease) {
		double now = now();
		Call call = this.acquiring.get();
		this.acquiring.remove();
		synchronized (this) {
			if (call == null) { // the listener missed the start: record the grant alone
				call = add(this.instance.toString(), lease.key(), lease.type(), "", now);
			}
			call.acquiredAt = now;
			call.fencingToken = token(lease);
			call.state = State.HELD;
			this.held.put(holdKey(lease.key(), token(lease)), call);
		}
	}

	private void gaveUp(LockRequest request, @Nullable Throwable error) {
		Call call = this.acquiring.get();
		this.acquiring.remove();
		if (call == null) {
			return;
		}
		synchronized (this) {
			Duration wait = request.waitTime();
			if (error != null) {
				call.state = State.FAILED;
				call.detail = error.toString();
			}
			else {
				call.state = (wait != null && wait.isZero()) ? State.SKIPPED : State.TIMED_OUT;
			}
			call.releasedAt = now();
		}
	}

	/**
	 * An acquisition whose outcome never came (the template failed unexpectedly): not
	 * left waiting forever.
	 */
	private synchronized void abandoned(@Nullable Call call) {
		if (call != null && call.state == State.WAITING) {
			call.state = State.FAILED;
			call.detail = "no outcome was reported";
			call.releasedAt = now();
		}
	}

	private synchronized Call add(String instance, String key, LockType type, String provider, double requestedAt) {
		Call call = new Call(++this.lastId, instance, Thread.currentThread().getName(), key, type, provider,
				requestedAt);
		this.calls.addLast(call);
		while (this.calls.size() > this.capacity) {
			Call dropped = this.calls.removeFirst();
			this.held.values().remove(dropped);
		}
		return call;
	}

	private double now() {
		return this.originMillis + (System.nanoTime() - this.originNanos) / 1e6;
	}

	/**
	 * The token the timeline shows: a lease of several keys (its key is them joined with
	 * commas) has one per key; the first key's stands for the hold.
	 */
	static long token(Lease lease) {
		try {
			return lease.fencingToken();
		}
		catch (IllegalStateException ex) {
			return lease.fencingToken(lease.key().split(",", 2)[0]);
		}
	}

	private static String holdKey(String key, long fencingToken) {
		return key + '\u0000' + fencingToken;
	}

	/**
	 * Records one template's calls under a label ({@code null}: this instance's name).
	 */
	private final class Recorder implements LockListener {

		private final @Nullable String label;

		Recorder(@Nullable String label) {
			this.label = label;
		}

		@Override
		public void acquiring(LockRequest request, String provider) {
			String who = (this.label != null) ? this.label : LockTimeline.this.instance.toString();
			abandoned(LockTimeline.this.acquiring.get());
			LockTimeline.this.acquiring.set(add(who, request.key(), request.type(), provider, now()));
		}

		@Override
		public void acquired(Lease lease, String provider, long waitNanos) {
			granted(lease);
		}

		@Override
		public void acquireFailed(LockRequest request, String provider, long waitNanos, @Nullable Throwable error) {
			gaveUp(request, error);
		}

		@Override
		public void released(Lease lease, String provider, long heldNanos) {
			LockTimeline.this.released(lease, provider, heldNanos);
		}

		@Override
		public void lost(Lease lease, String provider, String reason) {
			LockTimeline.this.lost(lease, provider, reason);
		}

	}

	/** A call being recorded; guarded by the timeline's monitor. */
	private static final class Call {

		final long id;

		final String instance;

		final String thread;

		final String key;

		final LockType type;

		final String provider;

		final double requestedAt;

		State state = State.WAITING;

		long fencingToken;

		@Nullable Double acquiredAt;

		@Nullable Double workStartedAt;

		@Nullable Double workEndedAt;

		@Nullable Double releasedAt;

		@Nullable Double lostAt;

		@Nullable String detail;

		Call(long id, String instance, String thread, String key, LockType type, String provider, double requestedAt) {
			this.id = id;
			this.instance = instance;
			this.thread = thread;
			this.key = key;
			this.type = type;
			this.provider = provider;
			this.requestedAt = requestedAt;
		}

		LockCall snapshot() {
			return new LockCall(this.id, this.instance, this.thread, this.key, this.type, this.provider, this.state,
					this.fencingToken, this.requestedAt, this.acquiredAt, this.workStartedAt, this.workEndedAt,
					this.releasedAt, this.lostAt, this.detail);
		}

	}

}
