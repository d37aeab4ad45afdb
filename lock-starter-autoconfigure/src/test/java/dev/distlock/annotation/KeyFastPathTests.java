package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import dev.distlock.annotation.LockKeyResolver.CompiledKey;
import org.junit.jupiter.api.Test;

import org.springframework.expression.EvaluationException;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The key expressions read without SpEL's evaluation (literals, parameters, property
 * chains) give what SpEL gives, fall back to SpEL for what they cannot read, and the rest
 * goes through SpEL with a reused context.
 */
class KeyFastPathTests {

	private final SpelLockKeyResolver resolver = new SpelLockKeyResolver(null);

	private final Method method = ReflectionUtils.findMethod(Service.class, "place", Order.class, String.class,
			Object.class);

	private final Service target = new Service();

	@Test
	void commonShapesTakeTheFastPath() {
		for (String expression : List.of("'orders'", "42", "#order", "#p1", "#a2", "#order.id", "#p0.id",
				"#order.customer.name", "#order?.customer?.name", "#order.vip", "#order.note", "#order.paid")) {
			SpelExpression parsed = (SpelExpression) new SpelExpressionParser().parseExpression(expression);
			CompiledKey fast = KeyFastPath.of(parsed.getAST(), Map.of("order", 0, "p0", 0, "p1", 1, "a2", 2),
					(target, args) -> {
						throw new AssertionError("no fallback expected");
					});
			assertThat(fast).as(expression).isNotNull();
		}
		for (String expression : List.of("#order.id + ':' + #p1", "#order.items[0]", "#root.methodName",
				"#order.describe()", "T(java.lang.Math).abs(-1)")) {
			SpelExpression parsed = (SpelExpression) new SpelExpressionParser().parseExpression(expression);
			assertThat(KeyFastPath.of(parsed.getAST(), Map.of("order", 0, "p1", 1), (target, args) -> null))
				.as(expression)
				.isNull();
		}
	}

	@Test
	void fastPathGivesWhatSpelGives() {
		Order order = new Order(7L, new Customer("ann"), true, List.of("book"));
		Object[] args = { order, "eu", new Bean() };
		for (String expression : List.of("'orders'", "42", "#order", "#p1", "#order.id", "#p0.id",
				"#order.customer.name", "#order?.customer?.name", "#order.vip", "#order.note", "#order.paid",
				"#a2.count", "#a2.flag", "#order.id + ':' + #p1", "#order.items[0]", "#root.methodName")) {
			Object fast = this.resolver.compile(expression, this.method, Service.class).evaluate(this.target, args);
			Object spel = new SpelExpressionParser().parseExpression(expression.replace("#order", "#p0"))
				.getValue(new org.springframework.expression.spel.support.StandardEvaluationContext(
						new LockExpressionRoot(this.method, args, this.target, Service.class)) {
					{
						setVariable("p0", args[0]);
						setVariable("p1", args[1]);
						setVariable("a2", args[2]);
					}
				});
			assertThat(fast).as(expression).isEqualTo(spel);
		}
	}

	@Test
	void nullsAndMissingPropertiesBehaveAsInSpel() {
		Object[] noCustomer = { new Order(1L, null, false, List.of()), "eu", new Bean() };
		CompiledKey nullSafe = this.resolver.compile("#order?.customer?.name", this.method, Service.class);
		assertThat(nullSafe.evaluate(this.target, noCustomer)).isNull();
		CompiledKey strict = this.resolver.compile("#order.customer.name", this.method, Service.class);
		assertThatExceptionOfType(EvaluationException.class).isThrownBy(() -> strict.evaluate(this.target, noCustomer))
			.withMessageContaining("name");
		CompiledKey onObject = this.resolver.compile("#a2.count", this.method, Service.class);
		Object[] otherType = { noCustomer[0], "eu", "a string has no count" };
		assertThatExceptionOfType(EvaluationException.class).isThrownBy(() -> onObject.evaluate(this.target, otherType))
			.withMessageContaining("count");
		assertThat(onObject.evaluate(this.target, new Object[] { null, null, new Bean() })).isEqualTo(3);
	}

	@Test
	void keyExpressionsOfOtherShapesShareAContextPerThreadEvenWhenNested() {
		CompiledKey outer = this.resolver.compile("#p1 + ':' + #a2.nested(#p1)", this.method, Service.class);
		CompiledKey inner = this.resolver.compile("#p1 + '!' + #p0", this.method, Service.class);
		Bean bean = new Bean();
		bean.inner = (value) -> String.valueOf(inner.evaluate(this.target, new Object[] { "x", value, null }));
		assertThat(outer.evaluate(this.target, new Object[] { null, "eu", bean })).isEqualTo("eu:eu!x");
		assertThat(outer.evaluate(this.target, new Object[] { null, "us", bean })).isEqualTo("us:us!x");
	}

	public record Customer(String name) {
	}

	public record Order(Long id, Customer customer, boolean vip, List<String> items) {

		public String getNote() {
			return "note-" + this.id;
		}

		public boolean isPaid() {
			return this.vip;
		}

		public String describe() {
			return "order " + this.id;
		}

	}

	public static class Bean {

		public int count = 3;

		java.util.function.Function<String, String> inner = (value) -> value;

		public boolean getFlag() {
			return true;
		}

		public String nested(String value) {
			return this.inner.apply(value);
		}

	}

	public static class Service {

		public void place(Order order, String region, Object extra) {
		}

	}

}
