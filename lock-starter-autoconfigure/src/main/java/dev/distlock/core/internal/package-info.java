/**
 * The engine behind {@link dev.distlock.core.LockTemplate}: internal, for distlock's
 * maintainers; nothing here is API and any of it may change in any release. Only
 * {@link dev.distlock.core.internal.LockExecutor}, the template's engine, is public;
 * everything else is package-private.
 * <p>
 * How it is layered, each depending only on what is below it: {@code LockExecutor} (run
 * work under a lease) → {@code MultiKeyLocks} (several keys, built on single
 * acquisitions) → {@code LockAcquirer} (one key: re-entry, local queue, the backend, a
 * lease) → {@code ManagedLease} (one lease: its life, its clock, hold-at-least as its
 * release policy) → {@code LocalQueue}, the SPI. A lease reports its end through
 * {@code LeaseHost}, which {@code LeaseTable} implements; the lease clock
 * ({@code LeaseRenewer}) drives leases and is never called by them. docs/core.md draws
 * it.
 */
@NullMarked
package dev.distlock.core.internal;

import org.jspecify.annotations.NullMarked;
