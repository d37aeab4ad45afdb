/**
 * The backend SPI, for backend authors: implement
 * {@link dev.distlock.core.spi.LockProvider} (a backend that owns its waiting) or
 * {@link dev.distlock.core.spi.TryOnceLockProvider} (one attempt plus an optional release
 * notification; the core waits), returning a {@link dev.distlock.core.spi.HeldLock} of
 * your own, and optionally a {@link dev.distlock.core.spi.LatchProvider}. The core hands
 * you a {@link dev.distlock.core.spi.LockAttempt} (key, type, lease, owner token, the
 * deadline of every call), a {@link dev.distlock.core.spi.LockWaiter} (the deadline of
 * the wait, and the wait loop thin backends use), and takes back
 * {@link dev.distlock.core.spi.AttemptOutcome}s and
 * {@link dev.distlock.core.spi.RenewalOutcome}s. Everything else (re-entry, local
 * queueing, leases, their clock and renewal, hold-at-least, multi-key locks) is the
 * core's.
 * <p>
 * A backend passes the published contract in {@code lock-starter-test}
 * ({@code AbstractLockProviderContractTests}, {@code AbstractCoordinationContractTests});
 * docs/write-a-backend.md walks through one.
 */
@NullMarked
package dev.distlock.core.spi;

import org.jspecify.annotations.NullMarked;
