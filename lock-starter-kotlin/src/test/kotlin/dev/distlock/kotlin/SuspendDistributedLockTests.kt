package dev.distlock.kotlin

import dev.distlock.annotation.DistributedLock
import dev.distlock.annotation.LockFailureAction
import dev.distlock.autoconfigure.DistlockAutoConfiguration
import dev.distlock.core.LockConfigurationException
import dev.distlock.core.LockRequest
import dev.distlock.core.LockTemplate
import dev.distlock.redis.autoconfigure.RedisLockAutoConfiguration
import dev.distlock.test.LockHistory
import dev.distlock.test.TestServers
import java.time.Duration
import java.util.UUID
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalStateException
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/**
 * `@DistributedLock` on a `suspend fun`, on the local backend and on Redis: Spring AOP runs the function as a
 * `Mono`, which the lock is held for, so the lock is held until the coroutine completes (checked from a recorded
 * history of overlapping calls), released when it fails or is cancelled, and the lease is in the coroutine's context.
 */
class SuspendDistributedLockTests {

	private fun run(provider: String, test: suspend CoroutineScope.(AssertableApplicationContext) -> Unit) {
		val uri = TestServers.redisUri()
		ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java,
				RedisLockAutoConfiguration::class.java, DistlockAutoConfiguration::class.java))
			.withUserConfiguration(InventoryConfiguration::class.java)
			.withPropertyValues("distlock.provider=$provider", "spring.data.redis.host=${uri.host}",
				"spring.data.redis.port=${uri.port}")
			.run { context ->
				assertThat(context).hasNotFailed()
				runBlocking { test(context) }
			}
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun lockIsHeldUntilTheCoroutineCompletes(provider: String) = run(provider) { context ->
		val inventory = context.getBean(Inventory::class.java)
		val sku = UUID.randomUUID().toString()
		val tokens = (1..4).map { async(Dispatchers.Default) { inventory.reserve(sku, 150) } }.awaitAll()
		assertThat(tokens).doesNotHaveDuplicates()
		assertThat(inventory.history.size()).isEqualTo(4)
		inventory.history.assertConsistent()
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun failureReleasesTheLock(provider: String) = run(provider) { context ->
		val inventory = context.getBean(Inventory::class.java)
		val sku = UUID.randomUUID().toString()
		assertThatIllegalStateException().isThrownBy { runBlocking { inventory.fail(sku) } }.withMessage("boom")
		assertFree(context, sku)
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun cancellationReleasesTheLock(provider: String) = run(provider) { context ->
		val inventory = context.getBean(Inventory::class.java)
		val locks = context.getBean(LockTemplate::class.java)
		val sku = UUID.randomUUID().toString()
		val entered = CompletableDeferred<Unit>()
		val job = launch(Dispatchers.Default) { inventory.hang(sku, entered) }
		entered.await()
		assertThat(locks.activeLeases()).singleElement().satisfies({ assertThat(it.key()).isEqualTo("sku:$sku") })
		job.cancelAndJoin()
		assertFree(context, sku)
	}

	@ParameterizedTest
	@ValueSource(strings = ["local", "redis"])
	fun busyLockUnderSkipReturnsNull(provider: String) = run(provider) { context ->
		val inventory = context.getBean(Inventory::class.java)
		val locks = context.getBean(LockTemplate::class.java)
		val sku = UUID.randomUUID().toString()
		val held = locks.acquire(LockRequest.of("sku:$sku"))
		assertThat(inventory.tryReserve(sku)).`as`("call while the lock is held elsewhere").isNull()
		held.release()
		assertThat(inventory.tryReserve(sku)).isEqualTo("reserved $sku")
	}

	@org.junit.jupiter.api.Test
	fun fallbackMethodOnASuspendFunctionFailsStartup() {
		ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration::class.java))
			.withBean(WithFallback::class.java)
			.withPropertyValues("distlock.provider=local")
			.run { context ->
				assertThat(context).hasFailed()
				assertThat(context.startupFailure).rootCause()
					.isInstanceOf(LockConfigurationException::class.java)
					.hasMessageContaining("fallbackMethod='busy' is not supported on a Kotlin suspend function")
			}
	}

	open class WithFallback {

		@DistributedLock(key = "#id", fallbackMethod = "busy")
		open suspend fun work(id: String): String = id

		open suspend fun busy(id: String): String = "busy"

	}

	private fun assertFree(context: AssertableApplicationContext, sku: String) {
		val locks = context.getBean(LockTemplate::class.java)
		val lease = locks.tryAcquire(LockRequest.builder("sku:$sku").waitTime(Duration.ofSeconds(2)).build())
		assertThat(lease).`as`("the lock after the coroutine ended").isPresent
		lease.get().release()
	}

	@Configuration(proxyBeanMethods = false)
	open class InventoryConfiguration {

		@Bean
		open fun inventory() = Inventory()

	}

	open class Inventory {

		// open: a final getter would run on the CGLIB proxy, whose fields are empty
		open val history = LockHistory()

		@DistributedLock(name = "sku", key = "#sku", waitTime = "10s")
		open suspend fun reserve(sku: String, holdMillis: Long): Long {
			val requested = System.nanoTime()
			val lease = currentLease()
			val start = System.nanoTime()
			delay(holdMillis)
			history.record(lease, 1, Thread.currentThread().name, requested, start, System.nanoTime())
			return lease.fencingToken()
		}

		@DistributedLock(name = "sku", key = "#sku", waitTime = "0", onFailure = LockFailureAction.SKIP)
		open suspend fun tryReserve(sku: String): String? {
			delay(10)
			return "reserved $sku"
		}

		@DistributedLock(name = "sku", key = "#sku")
		open suspend fun fail(sku: String): String {
			delay(20)
			check(currentLease().key() == "sku:$sku")
			throw IllegalStateException("boom")
		}

		@DistributedLock(name = "sku", key = "#sku")
		open suspend fun hang(sku: String, entered: CompletableDeferred<Unit>) {
			entered.complete(Unit)
			awaitCancellation()
		}

	}

}
