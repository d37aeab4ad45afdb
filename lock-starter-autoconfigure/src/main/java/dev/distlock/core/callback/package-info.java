/**
 * The callbacks of the one execution path,
 * {@link dev.distlock.core.LockTemplate#execute(dev.distlock.core.LockRequest, dev.distlock.core.callback.LockCallback, dev.distlock.core.callback.BusyCallback, dev.distlock.core.callback.AsyncHold)},
 * for integrations: the {@code @DistributedLock} interceptor, asynchronous and reactive
 * results, Kotlin coroutines, leader election, other libraries' lock APIs. Application
 * code uses {@link dev.distlock.core.LockOperations} instead.
 */
@NullMarked
package dev.distlock.core.callback;

import org.jspecify.annotations.NullMarked;
