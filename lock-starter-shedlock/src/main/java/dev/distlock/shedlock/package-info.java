/**
 * A ShedLock {@code LockProvider} on distlock, so {@code @SchedulerLock} code runs on any
 * distlock backend, and its auto-configuration.
 */
@NullMarked
package dev.distlock.shedlock;

import org.jspecify.annotations.NullMarked;
