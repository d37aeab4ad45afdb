/**
 * A runnable Spring Boot application that uses distlock the way an application would:
 * {@code @DistributedLock} on service methods, {@code LockTemplate} where code needs the
 * lease itself, and a contention demo.
 */
@NullMarked
package dev.distlock.sample;

import org.jspecify.annotations.NullMarked;
