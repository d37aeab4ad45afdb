package dev.distlock.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.LockExpressionRoot;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistlockRuntimeHints} covers every Lua script and SQL file distlock ships and
 * the SpEL root object, and ahead-of-time processing of {@link DistlockAutoConfiguration}
 * contributes it. The fallback method of a locked bean, invoked by reflection, needs no
 * hint of distlock's: the AOP proxy generated at build time registers its target's
 * methods.
 */
class DistlockRuntimeHintsTests {

	@Test
	void registrarCoversEveryLuaScriptAndSqlFileShipped() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new DistlockRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<String> shipped = shippedResources();
		assertThat(shipped).as("resources found under dev/distlock")
			.contains("dev/distlock/redis/acquire-mutex.lua", "dev/distlock/redis/prelude.lua",
					"dev/distlock/redisson/acquire-mutex.lua", "dev/distlock/jdbc/schema-postgresql.sql",
					"dev/distlock/jdbc/operations-h2.sql");
		for (String resource : shipped) {
			assertThat(RuntimeHintsPredicates.resource().forResource(resource)).as("hint for %s", resource)
				.accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/core/LockTemplate.class"))
			.as("no hint beyond the scripts and SQL")
			.rejects(hints);
	}

	@Test
	void registrarLetsKeyExpressionsCallEveryGetterOfTheRootObject() {
		RuntimeHints hints = new RuntimeHints();
		new DistlockRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(LockExpressionRoot.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
		for (Method method : LockExpressionRoot.class.getDeclaredMethods()) {
			if (Modifier.isPublic(method.getModifiers())) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method))
					.as("#root.%s", method.getName())
					.accepts(hints);
			}
		}
	}

	@Test
	void aheadOfTimeProcessingOfTheAutoConfigurationContributesTheHints() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			TestPropertyValues.of("distlock.provider=local").applyTo(context);
			context.register(DistlockAutoConfiguration.class);
			DefaultGenerationContext generation = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get("dev.distlock.aot", "Test")), new InMemoryGeneratedFiles());
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
			RuntimeHints hints = generation.getRuntimeHints();
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/acquire-mutex.lua"))
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/jdbc/schema-mysql.sql"))
				.accepts(hints);
			assertThat(
					RuntimeHintsPredicates.reflection().onMethodInvocation(LockExpressionRoot.class, "getMethodName"))
				.accepts(hints);
		}
	}

	@Test
	void aheadOfTimeProcessingOfALockedBeanLetsItsFallbackMethodBeInvoked() throws Exception {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			TestPropertyValues.of("distlock.provider=local").applyTo(context);
			context.register(DistlockAutoConfiguration.class, CarPark.class);
			DefaultGenerationContext generation = new DefaultGenerationContext(
					new ClassNameGenerator(ClassName.get("dev.distlock.aot", "Test")), new InMemoryGeneratedFiles());
			new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
			RuntimeHints hints = generation.getRuntimeHints();
			Method fallback = CarPark.class.getDeclaredMethod("turnAway", String.class);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(fallback)).as("fallback invocable")
				.accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethod(CarPark.class.getMethod("park", String.class)))
				.as("annotated method introspectable (its annotation is read when the bean is created)")
				.accepts(hints);
		}
	}

	static class CarPark {

		@DistributedLock(name = "car-park", waitTime = "0", fallbackMethod = "turnAway")
		public String park(String plate) {
			return plate + " parked";
		}

		String turnAway(String plate) {
			return plate + " turned away";
		}

	}

	private static List<String> shippedResources() throws IOException {
		List<String> paths = new ArrayList<>();
		PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver();
		for (String pattern : List.of("classpath*:dev/distlock/**/*.lua", "classpath*:dev/distlock/**/*.sql")) {
			for (Resource resource : resolver.getResources(pattern)) {
				String url = resource.getURL().toString();
				paths.add(url.substring(url.lastIndexOf("dev/distlock/")));
			}
		}
		return paths;
	}

}
