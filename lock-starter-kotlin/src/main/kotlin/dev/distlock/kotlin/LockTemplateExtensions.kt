package dev.distlock.kotlin

import dev.distlock.core.Lease
import dev.distlock.core.LockLostException
import dev.distlock.core.LockRequest
import dev.distlock.core.LockTemplate
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext
import kotlin.coroutines.coroutineContext

/**
 * Runs [block] under a MUTEX on [key] with the configured lease and wait; see [withLock].
 *
 * @since 0.1.0
 */
suspend fun <T> LockTemplate.withLock(key: String, block: suspend CoroutineScope.() -> T): T =
	withLock(LockRequest.of(key), block)

/**
 * Runs [block] under the requested lock, suspending (not blocking the caller's thread) while the lock is acquired:
 * the acquisition runs on [Dispatchers.IO] and is cancelled with the coroutine. The lock is held until [block]
 * completes and released when it returns, throws or is cancelled. Inside [block] the lease is [currentLease] and,
 * on whichever thread the coroutine runs, [dev.distlock.core.LockContext.currentLease]. A lease lost while [block]
 * ran raises [LockLostException] when it ends (added as suppressed to [block]'s own exception if it threw).
 *
 * A coroutine that already holds the same lock (same key and type, lease still valid) runs [block] within that hold
 * instead of waiting for itself; other coroutines of the same thread do not share it (ownership belongs to the
 * coroutine, not to the thread).
 *
 * @throws dev.distlock.core.LockAcquisitionException if the lock could not be acquired within the wait time
 * @since 0.1.0
 */
suspend fun <T> LockTemplate.withLock(request: LockRequest, block: suspend CoroutineScope.() -> T): T {
	val held = coroutineContext[LeaseContextElement]?.lease
	if (held != null && held.key() == request.key() && held.type() == request.type() && held.isValid()) {
		return coroutineScope { block() }
	}
	var acquired: Lease? = null
	try {
		runInterruptible(Dispatchers.IO) {
			// the acquiring thread gives up its claim: the lease belongs to the coroutine
			acquired = acquire(request).also { detach(it) }
		}
	}
	catch (ex: Throwable) {
		// acquired just as the coroutine was cancelled: the lease must not outlive it
		acquired?.let { lease -> withContext(NonCancellable + Dispatchers.IO) { lease.release() } }
		// cancelled while waiting: the interrupted acquisition's failure is the cancellation, not an error
		coroutineContext.ensureActive()
		throw ex
	}
	val lease = acquired!!
	try {
		val result = withContext(LeaseContextElement(lease)) { block() }
		checkNotLost(lease)
		return result
	}
	catch (ex: Throwable) {
		if (ex !is LockLostException) {
			runCatching { checkNotLost(lease) }.exceptionOrNull()?.let(ex::addSuppressed)
		}
		throw ex
	}
	finally {
		withContext(NonCancellable + Dispatchers.IO) { lease.release() }
	}
}
