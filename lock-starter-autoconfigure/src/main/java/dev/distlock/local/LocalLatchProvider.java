package dev.distlock.local;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.core.spi.LatchProvider;
import dev.distlock.core.spi.ReleaseSubscription;
import org.jspecify.annotations.Nullable;

/**
 * Countdown latches in this JVM's memory, named {@code local}: for tests and
 * single-instance applications, like the {@link LocalLockProvider}. Expiry is judged on
 * this JVM's monotonic clock; an expired latch is dropped when it is next touched and
 * when another latch is set. Waiters are notified in-process when a latch reaches zero.
 *
 * @since 0.2.0
 */
public final class LocalLatchProvider implements LatchProvider {

	private final Map<String, Latch> latches;

	private final Map<String, List<Runnable>> listeners;

	/**
	 * Creates a provider with its own store.
	 */
	public LocalLatchProvider() {
		this.latches = new ConcurrentHashMap<>();
		this.listeners = new ConcurrentHashMap<>();
	}

	/**
	 * Creates a provider that shares its latches with another, as two processes share a
	 * server (for tests).
	 * @param shareWith the provider whose store to share
	 */
	public LocalLatchProvider(LocalLatchProvider shareWith) {
		this.latches = shareWith.latches;
		this.listeners = shareWith.listeners;
	}

	@Override
	public String name() {
		return "local";
	}

	@Override
	public boolean trySetCount(String latch, long count, Duration expiry) {
		long now = System.nanoTime();
		this.latches.values().removeIf((each) -> each.isExpired(now));
		Latch created = new Latch(count, now + expiry.toNanos());
		return this.latches.putIfAbsent(latch, created) == null;
	}

	@Override
	public void countDown(String latch) {
		Latch current = live(latch);
		if (current == null) {
			return;
		}
		boolean zero;
		synchronized (current) {
			if (current.count == 0) {
				return;
			}
			current.count--;
			zero = current.count == 0;
		}
		if (zero) {
			this.latches.remove(latch, current);
			List<Runnable> waiting = this.listeners.get(latch);
			if (waiting != null) {
				waiting.forEach(Runnable::run);
			}
		}
	}

	@Override
	public long count(String latch) {
		Latch current = live(latch);
		if (current == null) {
			return 0;
		}
		synchronized (current) {
			return current.count;
		}
	}

	@Override
	public ReleaseSubscription subscribe(String latch, Runnable listener) {
		this.listeners.compute(latch, (name, list) -> {
			List<Runnable> waiting = (list != null) ? list : new CopyOnWriteArrayList<>();
			waiting.add(listener);
			return waiting;
		});
		return () -> this.listeners.computeIfPresent(latch, (name, list) -> {
			list.remove(listener);
			return list.isEmpty() ? null : list;
		});
	}

	private @Nullable Latch live(String latch) {
		Latch current = this.latches.get(latch);
		if (current != null && current.isExpired(System.nanoTime())) {
			this.latches.remove(latch, current);
			return null;
		}
		return current;
	}

	private static final class Latch {

		private long count; // guarded by this

		private final long expiresNanos;

		Latch(long count, long expiresNanos) {
			this.count = count;
			this.expiresNanos = expiresNanos;
		}

		boolean isExpired(long now) {
			return now - this.expiresNanos >= 0;
		}

	}

}
