package dev.distlock.fault;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockLostException;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The program a fault test runs in child JVMs: a Spring Boot application that uses
 * distlock as a user would, with one {@code @DistributedLock} method that holds the lock
 * for a while and then writes its fencing token to a PostgreSQL row, once with the
 * fencing check and once without. It calls that method in a loop and appends every step
 * to its history file ({@link FaultHistory} reads it) until its standard input closes,
 * which is how the test stops it (and why it never outlives the test JVM).
 * <p>
 * Arguments are Spring Boot arguments: the backend's own properties plus
 * {@code fault.worker}, {@code fault.history}, {@code fault.key}, {@code fault.run},
 * {@code fault.hold} (time inside the method before the write), {@code fault.gap} (pause
 * between calls) and, for the {@code redisson} backend, {@code fault.redisson.address}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class FaultWorkerApp {

	public static void main(String[] args) throws Exception {
		SpringApplication application = new SpringApplication(FaultWorkerApp.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setLogStartupInfo(false);
		// the test class path holds spring-boot-docker-compose (for the tests of the
		// connection details factories); a worker uses the servers its arguments name
		application.setDefaultProperties(Map.of("spring.docker.compose.enabled", "false"));
		exitWhenStdinCloses();
		try (ConfigurableApplicationContext context = application.run(args)) {
			context.getBean(Worker.class).run();
		}
		System.exit(0);
	}

	private static void exitWhenStdinCloses() {
		Thread thread = new Thread(() -> {
			try (InputStream in = System.in) {
				while (in.read() >= 0) {
					// the test never writes; EOF is the signal
				}
			}
			catch (IOException ex) {
				// treated as closed
			}
			Runtime.getRuntime().halt(0);
		}, "fault-stdin");
		thread.setDaemon(true);
		thread.start();
	}

	@Bean
	WorkerEvents workerEvents(@Value("${fault.history}") String history, @Value("${fault.worker}") String worker)
			throws IOException {
		return new WorkerEvents(history, worker);
	}

	@Bean
	FencedResource fencedResource(@Value("${fault.resource-url}") String url, @Value("${fault.run}") String run,
			@Value("${fault.worker}") String worker) {
		return new FencedResource(url, run, worker);
	}

	@Bean
	LockedWork lockedWork(WorkerEvents events, FencedResource resource) {
		return new LockedWork(events, resource);
	}

	@Bean
	Worker worker(LockedWork work, WorkerEvents events, @Value("${fault.key}") String key,
			@Value("${fault.hold:300ms}") Duration hold, @Value("${fault.gap:50ms}") Duration gap) {
		return new Worker(work, events, key, hold, gap);
	}

	@Bean(destroyMethod = "shutdown")
	@ConditionalOnProperty("fault.redisson.address")
	RedissonClient redissonClient(@Value("${fault.redisson.address}") String address) {
		Config config = new Config();
		config.useSingleServer()
			.setAddress(address)
			.setTimeout(1000)
			.setConnectTimeout(1000)
			.setRetryAttempts(1)
			.setPingConnectionInterval(1000)
			.setConnectionMinimumIdleSize(2)
			.setSubscriptionConnectionMinimumIdleSize(1);
		return Redisson.create(config);
	}

	/** The guarded method, as an application would write it. */
	public static class LockedWork {

		private final WorkerEvents events;

		private final FencedResource resource;

		LockedWork(WorkerEvents events, FencedResource resource) {
			this.events = events;
			this.resource = resource;
		}

		@DistributedLock(key = "#key")
		public void hold(String key, Duration hold) {
			long token = LockContext.currentLease().fencingToken();
			this.events.log("ACQ", token);
			sleep(hold);
			boolean accepted = this.resource.write(token);
			this.events.log("WRITE", token, accepted ? 1 : 0);
			this.events.log("END", token);
		}

	}

	/** Calls the guarded method in a loop and records each call's outcome. */
	static final class Worker {

		private final LockedWork work;

		private final WorkerEvents events;

		private final String key;

		private final Duration hold;

		private final Duration gap;

		Worker(LockedWork work, WorkerEvents events, String key, Duration hold, Duration gap) {
			this.work = work;
			this.events = events;
			this.key = key;
			this.hold = hold;
			this.gap = gap;
		}

		void run() {
			this.events.log("READY");
			while (true) {
				this.events.log("REQ");
				try {
					this.work.hold(this.key, this.hold);
					this.events.log("OK");
				}
				catch (LockLostException ex) {
					this.events.log("LOST", oneLine(ex));
				}
				catch (LockAcquisitionException ex) {
					this.events.log(ex.isTimeout() ? "BUSY" : "ERR", oneLine(ex));
				}
				catch (RuntimeException ex) {
					this.events.log("ERR", oneLine(ex));
				}
				sleep(this.gap);
			}
		}

		private static String oneLine(Throwable ex) {
			String text = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			return text.replace('\n', ' ').replace('\r', ' ');
		}

	}

	static void sleep(Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		// a lost lease may interrupt (distlock.on-lease-lost=interrupt): the work goes on
		// as a careless one would
		boolean interrupted = false;
		for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
			try {
				TimeUnit.NANOSECONDS.sleep(left);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
