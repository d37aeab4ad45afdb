package dev.distlock.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.core.Lease;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * The lease of several keys locked together: one lease per key, in lock order. Valid
 * while every key's lease is; released in reverse lock order; lost when any key's lease
 * is lost. Each key keeps its own fencing token ({@link #fencingToken(String)}).
 */
final class MultiKeyLease implements EngineLease {

	private final LockRequest request;

	private final List<EngineLease> parts;

	private final AtomicBoolean released = new AtomicBoolean();

	MultiKeyLease(LockRequest request, List<EngineLease> parts) {
		this.request = request;
		this.parts = List.copyOf(parts);
	}

	/**
	 * The keys joined with commas in lock order ({@link LockRequest#key()}).
	 * @return the keys as one label
	 */
	@Override
	public String key() {
		return this.request.key();
	}

	@Override
	public @Nullable String name() {
		return this.request.name();
	}

	@Override
	public LockType type() {
		return this.request.type();
	}

	/**
	 * Not defined for several keys: each has its own token.
	 * @throws IllegalStateException always; call {@link #fencingToken(String)}
	 */
	@Override
	public long fencingToken() {
		throw new IllegalStateException(
				"Lease of keys [" + key() + "] has one fencing token per key; call " + "fencingToken(key) instead");
	}

	@Override
	public long fencingToken(String key) {
		for (Lease part : this.parts) {
			if (part.key().equals(key)) {
				return part.fencingToken();
			}
		}
		throw new IllegalArgumentException("Key '" + key + "' is not one of the keys of this lease: [" + key() + "]");
	}

	@Override
	public Instant expiresAt() {
		Instant earliest = null;
		for (Lease part : this.parts) {
			Instant each = part.expiresAt();
			if (earliest == null || each.isBefore(earliest)) {
				earliest = each;
			}
		}
		return earliest;
	}

	@Override
	public boolean isValid() {
		if (this.released.get()) {
			return false;
		}
		for (Lease part : this.parts) {
			if (!part.isValid()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Extends every key's lease, in lock order.
	 * @throws LockLostException if one of the keys is no longer held
	 */
	@Override
	public void extend(Duration duration) {
		for (Lease part : this.parts) {
			part.extend(duration);
		}
	}

	/**
	 * Extends every key's lease and its hold, in lock order.
	 * @throws dev.distlock.core.LockLostException if one of the keys is no longer held
	 */
	@Override
	public void extend(Duration duration, Duration holdAtLeast) {
		for (Lease part : this.parts) {
			part.extend(duration, holdAtLeast);
		}
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			for (int i = this.parts.size() - 1; i >= 0; i--) {
				this.parts.get(i).release();
			}
		}
	}

	@Override
	public Lease onLost(Runnable callback) {
		AtomicBoolean fired = new AtomicBoolean();
		Runnable once = () -> {
			if (fired.compareAndSet(false, true)) {
				callback.run();
			}
		};
		for (Lease part : this.parts) {
			part.onLost(once);
		}
		return this;
	}

	@Override
	public void forEachHeld(Consumer<Lease> action) {
		for (EngineLease part : this.parts) {
			part.forEachHeld(action);
		}
	}

	@Override
	public boolean isOuterHold() {
		return true;
	}

	/**
	 * The loss to report when the guarded work ends: every key's, or {@code null} if all
	 * are still held.
	 */
	@Override
	public @Nullable LockLostException lossAtEnd() {
		List<LockLostException> losses = new ArrayList<>(1);
		for (EngineLease part : this.parts) {
			LockLostException lost = part.lossAtEnd();
			if (lost != null) {
				losses.add(lost);
			}
		}
		if (losses.isEmpty()) {
			return null;
		}
		LockLostException first = losses.get(0);
		for (int i = 1; i < losses.size(); i++) {
			first.addSuppressed(losses.get(i));
		}
		return first;
	}

	@Override
	public String toString() {
		return "MultiKeyLease" + this.parts;
	}

}
