/**
 * The distlock API, for application code: {@link dev.distlock.core.LockOperations} and
 * its implementation {@link dev.distlock.core.LockTemplate},
 * {@link dev.distlock.core.LockRequest}, {@link dev.distlock.core.Lease},
 * {@link dev.distlock.core.LockType}, {@link dev.distlock.core.LockContext}, the
 * {@link dev.distlock.core.LatchTemplate countdown latch},
 * {@link dev.distlock.core.LockSettings}, the observer
 * {@link dev.distlock.core.LockListener} with {@link dev.distlock.core.LeaseSnapshot},
 * and the exceptions, all {@link dev.distlock.core.DistributedLockException}s. Most code
 * needs only {@code @DistributedLock} ({@code dev.distlock.annotation}) or
 * {@code LockOperations}.
 * <p>
 * Who reads what: a backend author reads {@code dev.distlock.core.spi} and the test kit
 * ({@code lock-starter-test}); an integration (an annotation, a reactive adapter, another
 * library's lock API) reads {@code dev.distlock.core.callback};
 * {@code dev.distlock.core.internal} is the engine, for distlock's maintainers only.
 * Nothing in this package names a backend.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
