/**
 * Bridges from the locking APIs code is already written against: a
 * {@link java.util.concurrent.locks.Lock} view of a distlock lock
 * ({@link dev.distlock.integration.LeaseLock}) and a Spring Integration lock registry
 * ({@link dev.distlock.integration.DistlockLockRegistry}). They are thread-owned adapters
 * over {@link dev.distlock.core.LockTemplate}, kept out of {@code dev.distlock.core},
 * whose leases belong to no thread.
 */
@NullMarked
package dev.distlock.integration;

import org.jspecify.annotations.NullMarked;
