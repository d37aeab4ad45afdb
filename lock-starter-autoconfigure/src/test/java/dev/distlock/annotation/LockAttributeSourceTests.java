package dev.distlock.annotation;

import java.lang.reflect.Method;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operation of a method is the one of the class it is called on: an interface method
 * implemented by several classes gets each class's own annotation (or none), call after
 * call, in any order, and the compiled operation is reused.
 */
@Timeout(30)
class LockAttributeSourceTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local");

	@Test
	void aMethodOfOneClassKeepsItsOperation() throws Exception {
		Method call = Keyed.class.getMethod("call", String.class);
		this.contextRunner.run((context) -> {
			LockAttributeSource source = context.getBean(LockAttributeSource.class);
			LockAttribute first = source.getOperation(call, First.class);
			assertThat(first).isNotNull();
			assertThat(first.request(new First(), new Object[] { "7" }).key()).isEqualTo("first:7");
			for (int i = 0; i < 3; i++) {
				assertThat(source.getOperation(call, First.class)).isSameAs(first);
			}
		});
	}

	@Test
	void aMethodOfSeveralClassesGetsEachClassOwnOperation() throws Exception {
		Method call = Keyed.class.getMethod("call", String.class);
		this.contextRunner.run((context) -> {
			LockAttributeSource source = context.getBean(LockAttributeSource.class);
			assertThat(source.getOperation(call, Unannotated.class)).isNull();
			LockAttribute first = source.getOperation(call, First.class);
			LockAttribute second = source.getOperation(call, Second.class);
			assertThat(first).isNotNull();
			assertThat(second).isNotNull();
			assertThat(first.request(new First(), new Object[] { "7" }).key()).isEqualTo("first:7");
			assertThat(second.request(new Second(), new Object[] { "7" }).key()).isEqualTo("second:7");
			for (int i = 0; i < 3; i++) {
				assertThat(source.getOperation(call, Second.class)).isSameAs(second);
				assertThat(source.getOperation(call, First.class)).isSameAs(first);
				assertThat(source.getOperation(call, Unannotated.class)).isNull();
			}
		});
	}

	interface Keyed {

		String call(String id);

	}

	static class First implements Keyed {

		@Override
		@DistributedLock(key = "'first:' + #p0")
		public String call(String id) {
			return id;
		}

	}

	static class Second implements Keyed {

		@Override
		@DistributedLock(key = "'second:' + #p0")
		public String call(String id) {
			return id;
		}

	}

	static class Unannotated implements Keyed {

		@Override
		public String call(String id) {
			return id;
		}

	}

}
