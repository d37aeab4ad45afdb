package dev.distlock.kotlin

import dev.distlock.core.LockTemplate
import dev.distlock.local.LocalLockProvider
import dev.distlock.redis.RedisLockProvider
import dev.distlock.test.TestServers
import org.springframework.data.redis.connection.RedisStandaloneConfiguration
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory

/** A template on the named backend (`local`, or `redis` on the test Redis) and what closes it. */
class KotlinTestBackend(val name: String) : AutoCloseable {

	private val factory: LettuceConnectionFactory? = if (name == "redis") redisFactory() else null

	val locks: LockTemplate = LockTemplate(if (factory != null) RedisLockProvider(factory) else LocalLockProvider())

	override fun close() {
		locks.close()
		factory?.destroy()
	}

	override fun toString() = name

	private companion object {

		fun redisFactory(): LettuceConnectionFactory {
			val uri = TestServers.redisUri()
			return LettuceConnectionFactory(RedisStandaloneConfiguration(uri.host, uri.port)).apply {
				afterPropertiesSet()
				start()
			}
		}

	}

}
