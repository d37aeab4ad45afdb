/**
 * The {@link dev.distlock.annotation.DistributedLock @DistributedLock} annotation and
 * what applies it: an infrastructure advisor
 * ({@link dev.distlock.annotation.DistributedLockAdvisor}) around a
 * {@link dev.distlock.annotation.DistributedLockInterceptor}, per-method
 * {@link dev.distlock.annotation.LockAttribute}s compiled once and checked at startup,
 * and the replaceable {@link dev.distlock.annotation.LockKeyResolver}.
 */
@NullMarked
package dev.distlock.annotation;

import org.jspecify.annotations.NullMarked;
