package dev.distlock.annotation;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;

import dev.distlock.annotation.LockKeyResolver.CompiledKey;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.Literal;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Evaluates the common shapes of key expressions without SpEL's evaluation machinery: a
 * literal ({@code 'orders'}, {@code 42}), a parameter ({@code #order}, {@code #p0}), or a
 * parameter's property chain ({@code #order.id}, {@code #order?.customer.id}), read
 * through the getter ({@code getId()}, {@code isActive()}), a record-style accessor
 * ({@code id()}) or a public field, as SpEL's reflective accessor would. Each step
 * remembers the accessor for the last class it saw. Whatever a step cannot read this way
 * (no such accessor on the runtime class, a map, an inaccessible type) is handed to the
 * full SpEL evaluation, which also gives the usual error messages.
 */
final class KeyFastPath {

	private KeyFastPath() {
	}

	/**
	 * The fast evaluation of a checked expression, or {@code null} when it has another
	 * shape.
	 * @param ast the expression's syntax tree
	 * @param variables parameter names and aliases to indexes
	 * @param spel the full evaluation, for what the fast path cannot read
	 * @return the fast evaluation, or {@code null}
	 */
	static @Nullable CompiledKey of(SpelNode ast, Map<String, Integer> variables, CompiledKey spel) {
		if (ast instanceof Literal literal) {
			Object value = literal.getLiteralValue().getValue();
			return (target, args) -> value;
		}
		Integer index = variableIndex(ast, variables);
		if (index != null) {
			int position = index;
			return (target, args) -> args[position];
		}
		if (!(ast instanceof CompoundExpression) || ast.getChildCount() < 2) {
			return null;
		}
		index = variableIndex(ast.getChild(0), variables);
		if (index == null) {
			return null;
		}
		Step[] steps = new Step[ast.getChildCount() - 1];
		for (int i = 0; i < steps.length; i++) {
			if (!(ast.getChild(i + 1) instanceof PropertyOrFieldReference property)) {
				return null;
			}
			steps[i] = new Step(property.getName(), property.isNullSafe());
		}
		int position = index;
		return (target, args) -> {
			Object value = args[position];
			for (Step step : steps) {
				if (value == null) {
					if (step.nullSafe) {
						return null;
					}
					return spel.evaluate(target, args); // SpEL's own error
				}
				value = step.read(value);
				if (value == Step.UNREADABLE) {
					return spel.evaluate(target, args);
				}
			}
			return value;
		};
	}

	private static @Nullable Integer variableIndex(SpelNode node, Map<String, Integer> variables) {
		return (node instanceof VariableReference) ? variables.get(node.toStringAST().substring(1)) : null;
	}

	/**
	 * One property of a chain, with the accessor found for the last class it was read
	 * from.
	 */
	private static final class Step {

		static final Object UNREADABLE = new Object();

		private final String name;

		private final boolean nullSafe;

		private volatile @Nullable Accessor last;

		Step(String name, boolean nullSafe) {
			this.name = name;
			this.nullSafe = nullSafe;
		}

		@Nullable Object read(Object value) {
			Accessor accessor = this.last;
			if (accessor == null || accessor.type != value.getClass()) {
				accessor = Accessor.find(value.getClass(), this.name);
				this.last = accessor;
			}
			return accessor.read(value);
		}

	}

	private record Accessor(Class<?> type, @Nullable Method method, @Nullable Field field) {

		static Accessor find(Class<?> type, String name) {
			String capitalized = StringUtils.capitalize(name);
			for (String candidate : new String[] { "get" + capitalized, "is" + capitalized, name }) {
				Method method = ReflectionUtils.findMethod(type, candidate);
				if (method != null && !Modifier.isStatic(method.getModifiers()) && method.getReturnType() != void.class
						&& (!candidate.startsWith("is") || candidate.equals(name)
								|| method.getReturnType() == boolean.class || method.getReturnType() == Boolean.class)
						&& accessible(method)) {
					return new Accessor(type, method, null);
				}
			}
			Field field = ReflectionUtils.findField(type, name);
			if (field != null && Modifier.isPublic(field.getModifiers()) && !Modifier.isStatic(field.getModifiers())
					&& accessible(field)) {
				return new Accessor(type, null, field);
			}
			return new Accessor(type, null, null);
		}

		private static boolean accessible(Method method) {
			try {
				ReflectionUtils.makeAccessible(method);
				return true;
			}
			catch (RuntimeException ex) { // InaccessibleObjectException: a module that
											// does not open the package
				return false;
			}
		}

		private static boolean accessible(Field field) {
			try {
				ReflectionUtils.makeAccessible(field);
				return true;
			}
			catch (RuntimeException ex) {
				return false;
			}
		}

		@Nullable Object read(Object value) {
			if (this.method != null) {
				return ReflectionUtils.invokeMethod(this.method, value);
			}
			if (this.field != null) {
				return ReflectionUtils.getField(this.field, value);
			}
			return Step.UNREADABLE;
		}

	}

}
