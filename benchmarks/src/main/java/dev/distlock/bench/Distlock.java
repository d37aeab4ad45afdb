package dev.distlock.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

import dev.distlock.core.Lease;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code distlock-<backend>-template} and {@code distlock-<backend>-annotation}: distlock
 * in a Spring Boot application configured through {@code application.yml}-style
 * properties only ({@code distlock.provider} and the backend's connection), as a user
 * gets it. The template subject runs
 * {@link LockTemplate#execute(LockRequest, java.util.concurrent.Callable)}; the
 * annotation subject calls a {@code @DistributedLock} method through its proxy
 * ({@code AnnotatedWork}, present once the aspect exists). Both lock with a 30 s lease
 * and a 30 s wait.
 */
final class Distlock implements Subject {

	private static final String ANNOTATED = "dev.distlock.bench.AnnotatedWork";

	private final ConfigurableApplicationContext context;

	private final LockTemplate template;

	private final LockedCall work;

	private final boolean annotated;

	private final AutoCloseable cleanup;

	/**
	 * Starts the application.
	 * @param config servers and run id
	 * @param provider the value of {@code distlock.provider}
	 * @param properties the backend's connection properties
	 * @param annotated whether {@link #cycle} goes through the annotation (else through
	 * the template)
	 * @param cleanup what to remove from the backend after the run, given the run id
	 * (part of every key)
	 */
	Distlock(BenchConfig config, String provider, Map<String, Object> properties, boolean annotated,
			Function<String, AutoCloseable> cleanup, Class<?>... extraSources) throws Exception {
		Map<String, Object> all = new HashMap<>(properties);
		all.put("distlock.provider", provider);
		Class<?>[] sources = new Class<?>[extraSources.length + (annotated ? 2 : 1)];
		sources[0] = App.class;
		System.arraycopy(extraSources, 0, sources, 1, extraSources.length);
		if (annotated) {
			try {
				sources[sources.length - 1] = Class.forName(ANNOTATED);
			}
			catch (ClassNotFoundException ex) {
				throw new IllegalStateException("@DistributedLock is not available in this build", ex);
			}
		}
		boolean database = properties.containsKey("spring.datasource.url");
		this.context = BootContexts.start(all,
				(name) -> BootContexts.isLock4j(name) || (!database && BootContexts.isJdbc(name)), sources);
		this.template = this.context.getBean(LockTemplate.class);
		this.work = annotated ? (LockedCall) this.context.getBean(sources[sources.length - 1]) : new Work();
		this.annotated = annotated;
		this.cleanup = cleanup.apply(config.runId());
	}

	/**
	 * The application's {@link LockTemplate}, for drivers that build their own requests.
	 */
	LockTemplate template() {
		return this.template;
	}

	static LockRequest request(String key) {
		return LockRequest.builder(key).lease(BenchConfig.LEASE).waitTime(BenchConfig.WAIT).build();
	}

	@Override
	public Hold lock(String key) {
		Lease lease = this.template.acquire(request(key));
		return lease::release;
	}

	@Override
	public void cycle(String key) {
		if (this.annotated) {
			this.work.call(key);
		}
		else {
			this.template.execute(request(key), () -> {
				this.work.call(key);
				return null;
			});
		}
	}

	@Override
	public void close() throws Exception {
		this.context.close();
		this.cleanup.close();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
