package dev.distlock.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one lease held by this process, for operators (the {@code locks} actuator
 * endpoint, logs).
 *
 * @param key the key as requested
 * @param name the request's logical name ({@link LockRequest#name()}), or {@code null}
 * @param type the lock type
 * @param provider the backend's name
 * @param fencingToken the lease's fencing token
 * @param owner the owner token stored in the backend
 * @param holderThread name of the thread that acquired it
 * @param acquiredAt when it was acquired (this JVM's clock)
 * @param expiresAt estimated end of the current backend lease
 * @param renewals watchdog renewals and extensions so far
 * @param watchdog whether the watchdog renews it
 * @param valid whether it is still held
 * @param lostReason why it was lost, or {@code null}
 * @since 0.1.0
 */
public record LeaseSnapshot(String key, @Nullable String name, LockType type, String provider, long fencingToken,
		String owner, String holderThread, Instant acquiredAt, Instant expiresAt, long renewals, boolean watchdog,
		boolean valid, @Nullable String lostReason) {
}
