package dev.distlock.annotation;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Stream;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockContext;
import dev.distlock.core.LockKeyException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.LockType;
import dev.distlock.local.LocalLockProvider;
import dev.distlock.test.NamedLockProvider;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.expression.EvaluationException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Bad input fails loudly, early and with a message naming the culprit: every mistake in a
 * {@code @DistributedLock} that can be seen without a call stops the application's
 * startup with a {@link LockConfigurationException} naming the method and the offending
 * value; keys that come out null or blank, or whose expression fails, raise
 * {@link LockKeyException} before anything is locked; nothing hangs and no lock is left
 * behind.
 */
@Timeout(30)
class BadInputTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class))
		.withPropertyValues("distlock.provider=local", "test.lease=soon");

	static Stream<Arguments> badAnnotations() {
		return Stream.of(arguments("bad SpEL syntax", BadSyntax.class, new String[] { "'#id +'", "not valid SpEL" }),
				arguments("variable that is no parameter", UnknownVariable.class,
						new String[] { "'#ordr.id'", "#ordr, which is not a parameter", "#order" }),
				arguments("bare name instead of #name or a literal", BareName.class,
						new String[] { "'orders'", "names 'orders'", "#orders" }),
				arguments("unknown SpEL function", UnknownFunction.class,
						new String[] { "'#hash(#id)'", "calls function #hash" }),
				arguments("unparseable lease", UnparseableLease.class,
						new String[] { "lease 'soon' is not a duration" }),
				arguments("placeholder resolving to an unparseable lease", PlaceholderLease.class,
						new String[] { "lease '${test.lease}' (= 'soon') is not a duration" }),
				arguments("unresolvable placeholder", MissingPlaceholder.class,
						new String[] { "waitTime '${no.such.wait}'", "cannot be resolved" }),
				arguments("negative wait", NegativeWait.class, new String[] { "waitTime '-1s' must not be negative" }),
				arguments("zero lease", ZeroLease.class, new String[] { "lease '0' must be positive" }),
				arguments("negative lease", NegativeLease.class, new String[] { "lease '-5s' must be positive" }),
				arguments("permits below one", NoPermits.class, new String[] { "permits must be at least 1, was 0" }),
				arguments("permits on a MUTEX", PermitsOnMutex.class,
						new String[] { "permits=3 applies to SEMAPHORE only", "MUTEX" }),
				arguments("unknown fallback method", UnknownFallback.class,
						new String[] { "fallbackMethod 'nope' not found" }),
				arguments("fallback with other parameters", FallbackOtherParameters.class,
						new String[] { "fallbackMethod 'other' not found", "(String)", "found only",
								"other(String, int)" }),
				arguments("fallback with an incompatible return type", FallbackOtherReturn.class,
						new String[] { "fallbackMethod 'count' returns java.lang.Integer", "java.lang.String" }),
				arguments("SKIP on a primitive return", SkipPrimitive.class,
						new String[] { "onFailure=SKIP cannot skip a method returning int" }),
				arguments("SKIP and a fallback at once", SkipAndFallback.class,
						new String[] { "onFailure=SKIP and fallbackMethod='other' contradict" }),
				arguments("unknown provider", UnknownProvider.class,
						new String[] { "provider 'nosuch' is not configured", "available: [local]" }),
				arguments("private method", PrivateMethod.class, new String[] { "the method is private" }),
				arguments("final method", FinalMethod.class, new String[] { "the method is final" }),
				arguments("static method", StaticMethod.class, new String[] { "the method is static" }),
				arguments("unsupported asynchronous return type", ReactiveReturn.class,
						new String[] { "return type org.reactivestreams.Publisher", "not supported" }));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badAnnotations")
	void badAnnotationFailsStartupNamingMethodAndValue(String what, Class<?> beanClass, String[] fragments) {
		this.contextRunner.withBean(beanClass)
			.run((context) -> assertConfigurationFailure(context, beanClass.getName() + ".", fragments));
	}

	@Test
	void typeTheBackendLacksFailsStartup() {
		this.contextRunner
			.withBean("mutexOnly", NamedLockProvider.class,
					() -> new NamedLockProvider("mutexonly", new LocalLockProvider(), Set.of(LockType.MUTEX)))
			.withBean(UnsupportedType.class)
			.run((context) -> assertConfigurationFailure(context, UnsupportedType.class.getName() + ".run",
					"lock provider 'mutexonly' does not support SEMAPHORE locks", "[MUTEX]"));
	}

	@Test
	void unknownProviderPropertyFailsStartup() {
		this.contextRunner.withPropertyValues("distlock.provider=nosuch")
			.run((context) -> assertConfigurationFailure(context, "distlock.provider is 'nosuch'"));
	}

	@Test
	void negativeDefaultWaitFailsStartup() {
		this.contextRunner.withPropertyValues("distlock.default-wait=-2s")
			.run((context) -> assertConfigurationFailure(context, "distlock.default-wait must not be negative",
					"PT-2S"));
	}

	@Test
	void keysThatFailAtRuntimeRaiseLockKeyExceptionAndLeakNothing() {
		this.contextRunner.withBean(RuntimeKeys.class).run((context) -> {
			RuntimeKeys keys = context.getBean(RuntimeKeys.class);
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> keys.byId(null))
				.withMessageContaining("'#id'")
				.withMessageContaining(RuntimeKeys.class.getName() + ".byId(String)")
				.withMessageContaining("gave null");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> keys.byId("  "))
				.withMessageContaining("'#id'")
				.withMessageContaining("gave a blank string");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> keys.byId(""))
				.withMessageContaining("gave a blank string");
			assertThatExceptionOfType(LockKeyException.class)
				.isThrownBy(() -> keys.byId("x".repeat(LockRequest.MAX_KEY_LENGTH + 1)))
				.withMessageContaining("'#id'")
				.withMessageContaining("gave a key of 1025 characters, more than 1024");
			assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> keys.nested(new Holder(null)))
				.withMessageContaining("'#holder.inner.length()'")
				.withMessageContaining(RuntimeKeys.class.getName() + ".nested(Holder)")
				.withCauseInstanceOf(EvaluationException.class);
			assertThat(keys.calls()).as("the method never ran").isZero();
			assertThat(keys.byId("fine")).isEqualTo("fine");
			assertNothingHeld(context);
		});
	}

	@Test
	void badRequestsThroughTheTemplateFailWithoutLeaking() {
		this.contextRunner.run((context) -> {
			LockTemplate template = context.getBean(LockTemplate.class);
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> template.acquire(LockRequest.builder("k").provider("nope").build()))
				.withMessageContaining("Unknown lock provider 'nope'");
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> LockRequest.builder("k").type(LockType.SEMAPHORE).permits(0).build())
				.withMessageContaining("Permits of lock 'k' must be at least 1, was 0");
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> LockRequest.builder(" ").build())
				.withMessageContaining("must not be null or blank");
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> LockRequest.builder("k".repeat(LockRequest.MAX_KEY_LENGTH + 1)).build())
				.withMessageContaining("Lock key must be at most 1024 characters, was 1025");
			assertThat(LockRequest.builder("k".repeat(LockRequest.MAX_KEY_LENGTH)).build().key())
				.hasSize(LockRequest.MAX_KEY_LENGTH);
			assertThatExceptionOfType(LockConfigurationException.class)
				.isThrownBy(() -> LockRequest.builder("k").lease(Duration.ofSeconds(-1)).build())
				.withMessageContaining("Lease of lock 'k' must be positive");
			assertNothingHeld(context);
		});
	}

	private static void assertNothingHeld(AssertableApplicationContext context) {
		assertThat(context.getBean(LockTemplate.class).activeLeases()).as("leases left").isEmpty();
		assertThat(context.getBean(LocalLockProvider.class).liveLocks()).as("backend locks left").isZero();
	}

	private static void assertConfigurationFailure(AssertableApplicationContext context, String... fragments) {
		assertThat(context).hasFailed();
		LockConfigurationException failure = find(context.getStartupFailure());
		assertThat(failure).as("a LockConfigurationException in the causes of %s", context.getStartupFailure())
			.isNotNull();
		for (String fragment : fragments) {
			assertThat(failure.getMessage()).contains(fragment);
		}
	}

	private static void assertConfigurationFailure(AssertableApplicationContext context, String prefix,
			String[] fragments) {
		String[] all = new String[fragments.length + 1];
		all[0] = prefix;
		System.arraycopy(fragments, 0, all, 1, fragments.length);
		assertConfigurationFailure(context, all);
	}

	private static @Nullable LockConfigurationException find(@Nullable Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof LockConfigurationException ex) {
				return ex;
			}
		}
		return null;
	}

	public static class BadSyntax {

		@DistributedLock(key = "#id +")
		public void run(String id) {
		}

	}

	public static class UnknownVariable {

		@DistributedLock(key = "#ordr.id")
		public void run(Object order) {
		}

	}

	public static class BareName {

		@DistributedLock(key = "orders")
		public void run(String orders) {
		}

	}

	public static class UnknownFunction {

		@DistributedLock(key = "#hash(#id)")
		public void run(String id) {
		}

	}

	public static class UnparseableLease {

		@DistributedLock(lease = "soon")
		public void run() {
		}

	}

	public static class PlaceholderLease {

		@DistributedLock(lease = "${test.lease}")
		public void run() {
		}

	}

	public static class MissingPlaceholder {

		@DistributedLock(waitTime = "${no.such.wait}")
		public void run() {
		}

	}

	public static class NegativeWait {

		@DistributedLock(waitTime = "-1s")
		public void run() {
		}

	}

	public static class ZeroLease {

		@DistributedLock(lease = "0")
		public void run() {
		}

	}

	public static class NegativeLease {

		@DistributedLock(lease = "-5s")
		public void run() {
		}

	}

	public static class NoPermits {

		@DistributedLock(type = LockType.SEMAPHORE, permits = 0)
		public void run() {
		}

	}

	public static class PermitsOnMutex {

		@DistributedLock(permits = 3)
		public void run() {
		}

	}

	public static class UnknownFallback {

		@DistributedLock(fallbackMethod = "nope")
		public String run(String id) {
			return id;
		}

	}

	public static class FallbackOtherParameters {

		@DistributedLock(fallbackMethod = "other")
		public String run(String id) {
			return id;
		}

		public String other(String id, int extra) {
			return id;
		}

	}

	public static class FallbackOtherReturn {

		@DistributedLock(fallbackMethod = "count")
		public String run(String id) {
			return id;
		}

		public Integer count(String id) {
			return 0;
		}

	}

	public static class SkipPrimitive {

		@DistributedLock(onFailure = LockFailureAction.SKIP)
		public int run() {
			return 1;
		}

	}

	public static class SkipAndFallback {

		@DistributedLock(onFailure = LockFailureAction.SKIP, fallbackMethod = "other")
		public String run() {
			return "";
		}

		public String other() {
			return "";
		}

	}

	public static class UnknownProvider {

		@DistributedLock(provider = "nosuch")
		public void run() {
		}

	}

	public static class UnsupportedType {

		@DistributedLock(provider = "mutexonly", type = LockType.SEMAPHORE)
		public void run() {
		}

	}

	public static class PrivateMethod {

		@DistributedLock
		private void run() {
		}

	}

	public static class FinalMethod {

		@DistributedLock
		public final void run() {
		}

	}

	public static class StaticMethod {

		@DistributedLock
		public static void run() {
		}

	}

	public static class ReactiveReturn {

		@DistributedLock
		public Publisher<String> run() {
			return Mono.just("x");
		}

	}

	public record Holder(@Nullable String inner) {
	}

	public static class RuntimeKeys {

		private int calls;

		@DistributedLock(key = "#id")
		public String byId(@Nullable String id) {
			this.calls++;
			return LockContext.currentLease().key();
		}

		@DistributedLock(key = "#holder.inner.length()")
		public void nested(Holder holder) {
			this.calls++;
		}

		public int calls() {
			return this.calls;
		}

	}

}
