package dev.distlock.bench;

import java.util.Map;

import com.baomidou.lock.LockInfo;
import com.baomidou.lock.LockTemplate;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code lock4j}: lock4j 2.2.7's RedisTemplate executor through its {@link LockTemplate},
 * in a Spring Boot 4 application with lock4j's own auto-configuration (its
 * {@code spring-boot-starter-aop} dependency excluded, which stops at Boot 4.0.0-M2). A
 * busy lock is retried after lock4j's default retry interval; locks are not re-entrant.
 */
final class Lock4jSubject implements Subject {

	private final ConfigurableApplicationContext context;

	private final LockTemplate template;

	private final BenchConfig config;

	Lock4jSubject(BenchConfig config) {
		this.context = BootContexts.start(
				Map.of("spring.data.redis.host", config.redisHost(), "spring.data.redis.port", config.redisPort()),
				(name) -> BootContexts.isDistlock(name) || BootContexts.isJdbc(name), App.class);
		this.template = this.context.getBean(LockTemplate.class);
		this.config = config;
	}

	@Override
	public Hold lock(String key) {
		LockInfo info = this.template.lock(key, BenchConfig.LEASE.toMillis(), BenchConfig.WAIT.toMillis());
		if (info == null) {
			throw new IllegalStateException("lock4j did not acquire " + key + " within " + BenchConfig.WAIT);
		}
		return () -> this.template.releaseLock(info);
	}

	@Override
	public boolean reentrant() {
		return false;
	}

	@Override
	public void close() {
		this.context.close();
		RedisKeys.deleteMatching(this.config, "*" + this.config.runId() + "*");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
