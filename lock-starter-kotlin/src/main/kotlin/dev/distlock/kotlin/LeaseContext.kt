package dev.distlock.kotlin

import dev.distlock.core.Lease
import dev.distlock.core.LockContext
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.reactor.ReactorContext
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.coroutineContext

/**
 * The lease held by a coroutine, as an element of its context. Whichever thread the coroutine resumes on, the lease
 * is [LockContext.currentLease] there while it runs (and is taken off when it suspends), so Java code called from
 * the coroutine, such as the fenced writes of `dev.distlock.fencing`, finds the fencing token as it would in a
 * locked method. [LockTemplate.withLock][withLock] adds it; read it with [currentLease].
 *
 * @property lease the held lease
 * @since 0.1.0
 */
class LeaseContextElement(val lease: Lease) : ThreadContextElement<Unit>,
	AbstractCoroutineContextElement(LeaseContextElement) {

	/** The key of this element in a coroutine context. */
	companion object Key : CoroutineContext.Key<LeaseContextElement>

	override fun updateThreadContext(context: CoroutineContext) {
		LockContext.push(lease)
	}

	override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {
		LockContext.pop(lease)
	}

	override fun toString(): String = "LeaseContextElement(${lease.key()}, token ${lease.fencingToken()})"

}

/**
 * The lease of the lock the running coroutine holds: inside [LockTemplate.withLock][withLock], or inside a
 * `@DistributedLock suspend fun` (where Spring runs the function as a `Mono` and the lease travels in its Reactor
 * context).
 *
 * @throws IllegalStateException if the coroutine holds no lock
 * @since 0.1.0
 */
suspend fun currentLease(): Lease = currentLeaseOrNull() ?: throw IllegalStateException(
	"No lock is held by this coroutine: currentLease() works inside LockTemplate.withLock { } or a " +
		"@DistributedLock suspend fun")

/**
 * The lease of the lock the running coroutine holds, or `null`; see [currentLease].
 *
 * @since 0.1.0
 */
suspend fun currentLeaseOrNull(): Lease? {
	val context = coroutineContext
	context[LeaseContextElement]?.let { return it.lease }
	val reactor = context[ReactorContext]?.context ?: return null
	return if (reactor.hasKey(Lease::class.java)) reactor.get(Lease::class.java) else null
}
