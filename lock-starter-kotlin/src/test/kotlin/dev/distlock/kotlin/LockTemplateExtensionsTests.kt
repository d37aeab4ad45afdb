package dev.distlock.kotlin

import dev.distlock.core.LockContext
import dev.distlock.core.LockRequest
import dev.distlock.test.LockHistory
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import java.time.Duration
import java.util.UUID

/**
 * The suspending `LockTemplate.withLock` on the local backend and on Redis: mutual exclusion from a recorded
 * history, the lease in the coroutine context and in `LockContext` across thread hops, release on failure and on
 * cancellation (while holding and while waiting), re-entry by the holding coroutine.
 */
class LockTemplateExtensionsTests {

	private val key = "kt:" + UUID.randomUUID()

	private var backend: KotlinTestBackend? = null

	private fun backend(name: String) = KotlinTestBackend(name).also { backend = it }

	@AfterEach
	fun close() {
		backend?.close()
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun coroutinesHoldTheLockOneAtATimeUntilTheyComplete(name: String) = runBlocking {
		val locks = backend(name).locks
		val history = LockHistory()
		(1..8).map { i ->
			async(Dispatchers.Default) {
				val requested = System.nanoTime()
				locks.withLock(key) {
					val start = System.nanoTime()
					delay(30)
					history.record(currentLease(), 1, "coroutine $i", requested, start, System.nanoTime())
				}
			}
		}.awaitAll()
		assertThat(history.size()).isEqualTo(8)
		history.assertConsistent()
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun leaseIsInTheCoroutineContextAndInLockContextOnEveryThread(name: String) = runBlocking {
		val locks = backend(name).locks
		locks.withLock(key) {
			val lease = currentLease()
			assertThat(lease.key()).isEqualTo(key)
			val seenElsewhere = withContext(Dispatchers.IO) { LockContext.currentLease() }
			assertThat(seenElsewhere).isSameAs(lease)
			delay(10)
			assertThat(LockContext.currentLease()).isSameAs(lease)
		}
		assertThat(LockContext.findCurrentLease()).isEmpty
		assertThat(currentLeaseOrNull()).isNull()
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun failureReleasesTheLock(name: String) = runBlocking {
		val locks = backend(name).locks
		assertThatIllegalStateException().isThrownBy {
			runBlocking { locks.withLock(key) { delay(10); throw IllegalStateException("boom") } }
		}
		assertFree(name)
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun cancellationWhileHoldingReleasesTheLock(name: String) = runBlocking {
		val locks = backend(name).locks
		val entered = CompletableDeferred<Unit>()
		val job = launch(Dispatchers.Default) {
			locks.withLock(key) {
				entered.complete(Unit)
				awaitCancellation()
			}
		}
		entered.await()
		assertThat(locks.activeLeases()).hasSize(1)
		job.cancelAndJoin()
		assertFree(name)
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun cancellationWhileWaitingLeavesNothingHeld(name: String) = runBlocking {
		val locks = backend(name).locks
		val holder = locks.acquire(LockRequest.of(key))
		val waiter = launch(Dispatchers.Default) {
			locks.withLock(LockRequest.builder(key).waitTime(Duration.ofSeconds(30)).build()) { error("ran") }
		}
		delay(200)
		withTimeout(5_000) { waiter.cancelAndJoin() }
		holder.release()
		assertFree(name)
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun holdingCoroutineReentersItsLock(name: String) = runBlocking {
		val locks = backend(name).locks
		val tokens = locks.withLock(key) {
			val outer = currentLease().fencingToken()
			val inner = withTimeout(5_000) { locks.withLock(key) { currentLease().fencingToken() } }
			outer to inner
		}
		assertThat(tokens.second).isEqualTo(tokens.first)
	}

	private suspend fun assertFree(name: String) {
		val locks = backend!!.locks
		val lease = withContext(Dispatchers.IO) {
			locks.tryAcquire(LockRequest.builder(key).waitTime(Duration.ofSeconds(2)).build())
		}
		assertThat(lease).`as`("the lock on %s after the coroutine ended", name).isPresent
		lease.get().release()
		assertThat(locks.activeLeases()).isEmpty()
	}

}
