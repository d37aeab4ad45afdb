/**
 * Observability for every backend, built on the core's
 * {@link dev.distlock.core.LockListener} and {@link dev.distlock.core.LockTemplate}:
 * Micrometer meters, Observation API spans, the {@code distlockLocks} actuator endpoint
 * and a health indicator per backend. Each class needs its library only when it is used;
 * the auto-configurations in {@code dev.distlock.autoconfigure} back off when a library
 * is absent.
 */
@NullMarked
package dev.distlock.observability;

import org.jspecify.annotations.NullMarked;
