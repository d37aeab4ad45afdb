package dev.distlock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.jdbc.autoconfigure.JdbcLockAutoConfiguration;
import dev.distlock.redis.autoconfigure.RedisLockAutoConfiguration;
import dev.distlock.zookeeper.ZooKeeperTestSupport;
import dev.distlock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Disposing the subscription of a locked method returning an endless {@code Flux} frees
 * its lock within a second, for another thread of the same application and for another
 * application on the same backend (issue 28 #10; the local backend's locks are seen by
 * its own application only).
 */
@Timeout(60)
class ReactiveCancelTests {

	private static TestingServer zookeeper;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		zookeeper = ZooKeeperTestSupport.server();
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		zookeeper.close();
	}

	private ApplicationContextRunner runner(String provider, String prefix) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DistlockAutoConfiguration.class,
					RedisLockAutoConfiguration.class, JdbcLockAutoConfiguration.class,
					ZooKeeperLockAutoConfiguration.class))
			.withPropertyValues("distlock.provider=" + provider, "distlock.key-prefix=" + prefix,
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=6379",
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
					"spring.datasource.username=postgres", "distlock.jdbc.initialize-schema=always",
					"distlock.zookeeper.connect-string=" + zookeeper.getConnectString())
			.withBean(Ticker.class);
	}

	@ParameterizedTest
	@ValueSource(strings = { "jdbc", "redis", "zookeeper", "local" })
	void disposedEndlessFluxFreesItsLockForAnotherThreadAndAnotherApplication(String provider) {
		String prefix = "cancel-" + UUID.randomUUID().toString().substring(0, 8) + ":";
		this.runner(provider, prefix).run((first) -> this.runner(provider, prefix).run((second) -> {
			assertThat(first).hasNotFailed();
			assertThat(second).hasNotFailed();
			Ticker ticker = first.getBean(Ticker.class);
			// the local backend's locks live in one application: another one never sees
			// them
			List<ConfigurableApplicationContext> others = provider.equals("local")
					? List.of(first.getSourceApplicationContext())
					: List.of(first.getSourceApplicationContext(), second.getSourceApplicationContext());
			for (ConfigurableApplicationContext other : others) {
				List<Long> seen = new CopyOnWriteArrayList<>();
				// the previous caller's take(1) releases after handing on its element
				// (and the first call of a new
				// application may find its connection still opening): retry until this
				// stream holds the key
				Disposable stream = ticker.ticks()
					.retryWhen(Retry.fixedDelay(100, Duration.ofMillis(50))
						.filter(LockAcquisitionException.class::isInstance))
					.subscribe(seen::add);
				long started = System.nanoTime();
				while (seen.size() < 30) {
					assertThat(System.nanoTime() - started).as("time to the third element")
						.isLessThan(TimeUnit.SECONDS.toNanos(10));
					Thread.sleep(10);
				}
				assertThat(ticker.firstElement(other)).as("the key while the stream runs, on %s", provider).isEmpty();
				stream.dispose();
				long disposed = System.nanoTime();
				List<String> attempts = Collections.synchronizedList(new ArrayList<>());
				// another thread, as a caller elsewhere in the application would be
				Long got = CompletableFuture.supplyAsync(() -> {
					while (System.nanoTime() - disposed < TimeUnit.SECONDS.toNanos(3)) {
						List<Long> element = ticker.firstElement(other);
						attempts.add(Duration.ofNanos(System.nanoTime() - disposed).toMillis() + " ms: "
								+ (element.isEmpty() ? "refused" : "got it"));
						if (!element.isEmpty()) {
							return System.nanoTime() - disposed;
						}
						sleep(50);
					}
					return null;
				}).get(10, TimeUnit.SECONDS);
				assertThat(got)
					.as("the key after dispose() on %s (%s); attempts: %s", provider,
							(other == first.getSourceApplicationContext()) ? "same application" : "another application",
							attempts)
					.isNotNull()
					.isLessThan(TimeUnit.SECONDS.toNanos(1));
			}
		}));
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static class Ticker {

		@DistributedLock(key = "'k'", waitTime = "0")
		Flux<Long> ticks() {
			return Flux.interval(Duration.ofMillis(50));
		}

		/**
		 * The first element of the given application's stream, or nothing if its lock was
		 * busy.
		 */
		List<Long> firstElement(ConfigurableApplicationContext context) {
			List<Long> first = context.getBean(Ticker.class)
				.ticks()
				.take(1)
				.collectList()
				.onErrorResume(LockAcquisitionException.class, (busy) -> Mono.just(List.of()))
				.block(Duration.ofSeconds(5));
			return (first != null) ? first : List.of();
		}

	}

}
