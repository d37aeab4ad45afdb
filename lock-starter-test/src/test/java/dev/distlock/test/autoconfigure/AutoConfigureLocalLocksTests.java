package dev.distlock.test.autoconfigure;

import java.time.Duration;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.test.LockRecorder;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application test with {@link AutoConfigureLocalLocks}: Spring Data Redis and an
 * embedded H2 database are on this module's test class path, so without the annotation
 * the redis and jdbc backends would both register and the application would fail to
 * choose; with it, its locks run in this JVM and a recorder says which ones a call took.
 */
@SpringBootTest(classes = AutoConfigureLocalLocksTests.Application.class)
@AutoConfigureLocalLocks
class AutoConfigureLocalLocksTests {

	@Autowired
	private OrderService orders;

	@Autowired
	private LockRecorder locks;

	@Autowired
	private ApplicationContext context;

	@Test
	void locksRunOnTheLocalProviderOnly() {
		assertThat(this.context.getBeansOfType(LockProvider.class).values()).extracting(LockProvider::name)
			.containsExactly("local");
		assertThat(this.context.getBean(LockTemplate.class).defaultProvider().name()).isEqualTo("local");
	}

	@Test
	void recorderSaysWhichKeyTheCallLockedWithWhichTypeAndLease() {
		this.locks.clear();
		this.orders.ship(42);
		assertThat(this.locks).locked("order:42")
			.withType(LockType.WRITE)
			.withLease(Duration.ofSeconds(30))
			.onProvider("local");
		assertThat(this.locks).lockedExactly("order:42");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(OrderService.class)
	static class Application {

	}

	@Service
	static class OrderService {

		@DistributedLock(key = "'order:' + #id", type = LockType.WRITE, lease = "30s")
		public String ship(long id) {
			return "shipped " + id;
		}

	}

}
