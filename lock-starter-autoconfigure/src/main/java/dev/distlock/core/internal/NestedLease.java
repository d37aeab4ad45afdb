package dev.distlock.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

import dev.distlock.core.Lease;
import dev.distlock.core.LockLostException;
import dev.distlock.core.LockType;
import org.jspecify.annotations.Nullable;

/**
 * What an inner, re-entrant acquisition returns: the outer lease, with a release that
 * only counts down.
 */
final class NestedLease implements EngineLease {

	private static final VarHandle RELEASED;

	static {
		try {
			RELEASED = MethodHandles.lookup().findVarHandle(NestedLease.class, "released", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final ManagedLease<?> outer;

	private volatile boolean released;

	NestedLease(ManagedLease<?> outer) {
		this.outer = outer;
	}

	@Override
	public String key() {
		return this.outer.key();
	}

	@Override
	public @Nullable String name() {
		return this.outer.name();
	}

	@Override
	public LockType type() {
		return this.outer.type();
	}

	@Override
	public long fencingToken() {
		return this.outer.fencingToken();
	}

	@Override
	public Instant expiresAt() {
		return this.outer.expiresAt();
	}

	@Override
	public boolean isValid() {
		return !this.released && this.outer.isValid();
	}

	@Override
	public void extend(Duration duration) {
		this.outer.extend(duration);
	}

	@Override
	public void extend(Duration duration, Duration holdAtLeast) {
		this.outer.extend(duration, holdAtLeast);
	}

	@Override
	public void release() {
		if (RELEASED.compareAndSet(this, false, true)) {
			this.outer.releaseHold();
		}
	}

	@Override
	public Lease onLost(Runnable callback) {
		this.outer.onLost(callback);
		return this;
	}

	@Override
	public @Nullable LockLostException lossAtEnd() {
		return this.outer.lossAtEnd();
	}

	@Override
	public void forEachHeld(Consumer<Lease> action) {
		action.accept(this.outer);
	}

	@Override
	public boolean isOuterHold() {
		return false;
	}

	@Override
	public String toString() {
		return "Nested" + this.outer;
	}

}
