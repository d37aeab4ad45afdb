package dev.distlock.shedlock;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockSettings;
import dev.distlock.core.LockTemplate;
import dev.distlock.redis.RedisLockProvider;
import dev.distlock.test.TestServers;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads of two nodes (each a lock template with its own Redis connection, on the
 * Redis at {@link TestServers#redisUri()}) run one task through ShedLock's
 * {@link DefaultLockingTaskExecutor}, sharing one {@link DistlockLockProvider} per node:
 * some tasks outrun {@code lockAtMostFor}, some extend the lock mid-work, and a
 * controller interrupts workers at random. Every run is recorded (node and thread, when
 * the lock was asked for, when the task started and ended, its extension, its fencing
 * token), and the history is checked: no two runs held the lock at the same time while
 * their leases were valid, and fencing tokens rise in the order the runs started.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisShedLockStressTests {

	private static final Duration LOCK_AT_MOST_FOR = Duration.ofMillis(300);

	private static final Duration EXTENDED_TO = Duration.ofMillis(600);

	private static final Duration RUN_FOR = Duration.ofSeconds(8);

	private static final int THREADS_PER_NODE = 4;

	private final String prefix = "shedlock-stress:" + UUID.randomUUID().toString().substring(0, 8) + ":";

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<LockTemplate> templates = new ArrayList<>();

	private final ConcurrentLinkedQueue<Run> history = new ConcurrentLinkedQueue<>();

	private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

	private final AtomicInteger interrupted = new AtomicInteger();

	private final AtomicInteger overran = new AtomicInteger();

	private final AtomicInteger extended = new AtomicInteger();

	private final AtomicInteger refusedExtensions = new AtomicInteger();

	@AfterEach
	void stop() throws Exception {
		for (LockTemplate template : this.templates) {
			template.close();
			template.defaultProvider().close();
		}
		this.factories.forEach(LettuceConnectionFactory::destroy);
	}

	@Test
	void historyOfManyThreadsOnTwoNodesHasOneHolderAtATimeAndRisingTokens() throws Exception {
		List<Thread> workers = new ArrayList<>();
		AtomicBoolean running = new AtomicBoolean(true);
		CountDownLatch start = new CountDownLatch(1);
		for (String node : List.of("A", "B")) {
			LockTemplate template = node();
			Recording provider = new Recording(new DistlockLockProvider(template));
			LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
			for (int i = 0; i < THREADS_PER_NODE; i++) {
				String name = node + i;
				Thread worker = new Thread(() -> work(name, provider, executor, running, start), "stress-" + name);
				worker.setDaemon(true);
				workers.add(worker);
				worker.start();
			}
		}
		start.countDown();
		long end = System.nanoTime() + RUN_FOR.toNanos();
		while (System.nanoTime() < end) {
			TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(50, 150));
			workers.get(ThreadLocalRandom.current().nextInt(workers.size())).interrupt();
		}
		running.set(false);
		for (Thread worker : workers) {
			worker.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(worker.isAlive()).as("%s ended", worker.getName()).isFalse();
		}

		assertThat(this.unexpected).as("exceptions other than interrupts and refused extensions").isEmpty();
		List<Run> runs = new ArrayList<>(this.history);
		runs.sort(Comparator.comparingLong(Run::startedNanos));
		assertThat(runs).as("runs that held the lock").hasSizeGreaterThan(10);
		for (int i = 1; i < runs.size(); i++) {
			Run before = runs.get(i - 1);
			Run after = runs.get(i);
			assertThat(after.startedNanos())
				.as("start of %s after the valid hold of %s ended (%d us apart)", after, before,
						TimeUnit.NANOSECONDS.toMicros(after.startedNanos() - before.validUntilNanos()))
				.isGreaterThanOrEqualTo(before.validUntilNanos());
			assertThat(after.token()).as("token of %s after %s", after, before).isGreaterThan(before.token());
		}
		assertThat(this.overran).as("runs that outlived lockAtMostFor").hasPositiveValue();
		assertThat(this.extended).as("runs extended mid-work").hasPositiveValue();
		assertThat(this.interrupted).as("runs interrupted mid-work").hasPositiveValue();

		// whatever ended how, the lock is free once the last lease ran out
		Optional<Lease> after = this.templates.get(0)
			.tryAcquire(LockRequest.builder("job").waitTime(EXTENDED_TO.multipliedBy(2)).build());
		assertThat(after).as("the lock after the run").isPresent();
		after.get().release();
	}

	private void work(String name, Recording provider, LockingTaskExecutor executor, AtomicBoolean running,
			CountDownLatch start) {
		try {
			start.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		while (running.get()) {
			Thread.interrupted();
			int kind = ThreadLocalRandom.current().nextInt(10);
			try {
				executor.executeWithLock((Runnable) () -> task(name, provider, kind),
						new LockConfiguration(Instant.now(), "job", LOCK_AT_MOST_FOR, Duration.ZERO));
			}
			catch (Throwable ex) {
				if (!Thread.currentThread().isInterrupted() && !causedByInterrupt(ex)) {
					this.unexpected.add(ex);
				}
			}
			Thread.interrupted();
			try {
				TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(1, 5));
			}
			catch (InterruptedException ex) {
				// pacing only
			}
		}
	}

	private static boolean causedByInterrupt(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException || cause.getClass().getSimpleName().contains("Interrupted")) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The task: short work mostly; sometimes longer than {@code lockAtMostFor}, or
	 * extended first.
	 */
	private void task(String name, Recording provider, int kind) {
		long started = System.nanoTime();
		long asked = provider.asked.get();
		Lease lease = DistlockLockProvider.leaseOf(provider.granted.get());
		long validUntil = asked + LOCK_AT_MOST_FOR.toNanos();
		String ending = "done";
		try {
			if (kind == 0) {
				this.overran.incrementAndGet();
				ending = "overran";
				TimeUnit.MILLISECONDS.sleep(LOCK_AT_MOST_FOR.toMillis() + 100);
			}
			else if (kind == 1) {
				TimeUnit.MILLISECONDS.sleep(20);
				long sent = System.nanoTime();
				try {
					LockExtender.extendActiveLock(EXTENDED_TO, Duration.ZERO);
					validUntil = Math.max(validUntil, sent + EXTENDED_TO.toNanos());
					this.extended.incrementAndGet();
					ending = "extended";
				}
				catch (LockExtender.LockCanNotBeExtendedException ex) {
					this.refusedExtensions.incrementAndGet();
					ending = "extension refused";
				}
				TimeUnit.MILLISECONDS.sleep(LOCK_AT_MOST_FOR.toMillis());
			}
			else {
				TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextInt(1, 20));
			}
		}
		catch (InterruptedException ex) {
			this.interrupted.incrementAndGet();
			ending = "interrupted";
			Thread.currentThread().interrupt();
		}
		finally {
			long ended = System.nanoTime();
			this.history.add(new Run(name, started, Math.min(ended, validUntil), lease.fencingToken(), ending));
		}
	}

	private LockTemplate node() {
		URI redis = TestServers.redisUri();
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(
				(redis.getHost() != null) ? redis.getHost() : "127.0.0.1",
				(redis.getPort() > 0) ? redis.getPort() : 6379);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(server,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		RedisLockProvider provider = new RedisLockProvider(factory);
		LockTemplate template = new LockTemplate(List.of(provider), provider.name(),
				LockSettings.defaults().withKeyPrefix(this.prefix).withCallTimeout(Duration.ofSeconds(10)), List.of());
		this.templates.add(template);
		return template;
	}

	/**
	 * One run of the task under the lock.
	 *
	 * @param holder the node and thread
	 * @param startedNanos when the task started
	 * @param validUntilNanos when it ended, or when its lease ran out if that came first
	 * @param token the lease's fencing token
	 * @param ending how it ended
	 */
	record Run(String holder, long startedNanos, long validUntilNanos, long token, String ending) {

		@Override
		public String toString() {
			return this.holder + "(token " + this.token + ", " + this.ending + ")";
		}

	}

	/**
	 * Records, per thread, when the lock was asked for (the lease counts from then) and
	 * which lock was granted.
	 */
	private static final class Recording implements LockProvider {

		private final DistlockLockProvider delegate;

		final ThreadLocal<Long> asked = new ThreadLocal<>();

		final ThreadLocal<SimpleLock> granted = new ThreadLocal<>();

		Recording(DistlockLockProvider delegate) {
			this.delegate = delegate;
		}

		@Override
		public Optional<SimpleLock> lock(LockConfiguration configuration) {
			this.asked.set(System.nanoTime());
			Optional<SimpleLock> lock = this.delegate.lock(configuration);
			lock.ifPresent(this.granted::set);
			return lock;
		}

	}

}
