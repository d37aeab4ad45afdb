package dev.distlock.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.distlock.core.LockConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.ReflectiveMethodResolver;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.expression.spel.support.StandardTypeConverter;

/**
 * The default {@link LockKeyResolver}: keys are SpEL expressions over the call. Variables
 * are the parameters by name (from {@code javac -parameters}) and by position
 * ({@code #p0}, {@code #a0}); the root object is a {@link LockExpressionRoot};
 * {@code @name} refers to a bean. Each expression is parsed once, and its syntax tree is
 * checked when the bean is created: a variable that is not a parameter, a function call
 * (none are registered), or a bare name that is no property of the root object (usually a
 * forgotten {@code #} or missing quotes) is reported there with the method and the
 * expression. A literal, a parameter or a parameter's property chain ({@code #order.id})
 * is then read without SpEL's evaluation machinery; any other expression is evaluated
 * with a per-thread evaluation context that is reused call after call, and SpEL caches
 * its property and method lookups on the parsed expression.
 *
 * @since 0.1.0
 */
public class SpelLockKeyResolver implements LockKeyResolver {

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames;

	private final @Nullable BeanResolver beanResolver;

	// shared by every evaluation: these are thread-safe and keep their reflection caches
	// across calls
	private final List<PropertyAccessor> propertyAccessors = List.of(new ReflectivePropertyAccessor());

	private final List<MethodResolver> methodResolvers = List.of(new ReflectiveMethodResolver());

	private final TypeConverter typeConverter = new StandardTypeConverter();

	private final ThreadLocal<ArgumentsContext> contexts = ThreadLocal.withInitial(this::newContext);

	/**
	 * Creates a resolver whose expressions can refer to the beans of the given factory.
	 * @param beanFactory the bean factory for {@code @name} references, or {@code null}
	 * for none
	 */
	public SpelLockKeyResolver(@Nullable BeanFactory beanFactory) {
		this(beanFactory, new DefaultParameterNameDiscoverer());
	}

	/**
	 * Creates a resolver.
	 * @param beanFactory the bean factory for {@code @name} references, or {@code null}
	 * for none
	 * @param parameterNames how parameter names are found
	 */
	public SpelLockKeyResolver(@Nullable BeanFactory beanFactory, ParameterNameDiscoverer parameterNames) {
		this.beanResolver = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
		this.parameterNames = parameterNames;
	}

	@Override
	public CompiledKey compile(String expression, Method method, Class<?> targetClass) {
		SpelExpression parsed;
		try {
			parsed = (SpelExpression) this.parser.parseExpression(expression);
		}
		catch (ParseException | IllegalStateException ex) {
			throw new LockConfigurationException(
					"Key expression '" + expression + "' of @DistributedLock on "
							+ LockAttribute.describe(method, targetClass) + " is not valid SpEL: " + ex.getMessage(),
					ex);
		}
		String[] names = this.parameterNames.getParameterNames(method);
		Map<String, Integer> variables = new HashMap<>();
		for (int i = 0; i < method.getParameterCount(); i++) {
			variables.put("p" + i, i);
			variables.put("a" + i, i);
		}
		if (names != null) {
			for (int i = 0; i < names.length; i++) {
				// a parameter named like p0 wins over the positional alias of another
				// index
				variables.put(names[i], i);
			}
		}
		List<String> problems = new ArrayList<>();
		check(parsed.getAST(), true, variables, problems);
		if (!problems.isEmpty()) {
			TreeSet<String> available = new TreeSet<>();
			variables.keySet().forEach((name) -> available.add("#" + name));
			available.add("#root");
			String hint = (names == null && method.getParameterCount() > 0)
					? " (parameter names are not available: compile with javac -parameters, or use #p0, #p1, ...)" : "";
			throw new LockConfigurationException("Key expression '" + expression + "' of @DistributedLock on "
					+ LockAttribute.describe(method, targetClass) + " " + String.join("; ", problems)
					+ ". Variables available: " + available + hint);
		}
		Map<String, Integer> indexes = Map.copyOf(variables);
		CompiledKey spel = (target, args) -> evaluate(parsed, indexes, args,
				new LockExpressionRoot(method, args, target, targetClass));
		CompiledKey fast = KeyFastPath.of(parsed.getAST(), indexes, spel);
		return (fast != null) ? fast : spel;
	}

	private @Nullable Object evaluate(SpelExpression parsed, Map<String, Integer> indexes, @Nullable Object[] args,
			LockExpressionRoot root) {
		ArgumentsContext context = this.contexts.get();
		if (context.args != null) {
			// evaluating a key led to another evaluation on this thread (a bean method
			// with a lock of its own)
			context = newContext();
		}
		context.args = args;
		context.indexes = indexes;
		try {
			return parsed.getValue(context, root);
		}
		finally {
			context.args = null;
		}
	}

	private ArgumentsContext newContext() {
		ArgumentsContext context = new ArgumentsContext();
		context.setPropertyAccessors(this.propertyAccessors);
		context.setMethodResolvers(this.methodResolvers);
		context.setTypeConverter(this.typeConverter);
		if (this.beanResolver != null) {
			context.setBeanResolver(this.beanResolver);
		}
		return context;
	}

	/**
	 * Walks the syntax tree. {@code rootContext} tells whether the node is evaluated
	 * against the root object: a bare property there must be one of the root's; elsewhere
	 * (after a dot, inside a selection) it is some other object's.
	 */
	private static void check(SpelNode node, boolean rootContext, Map<String, Integer> variables,
			List<String> problems) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			if (!name.equals("root") && !name.equals("this") && !variables.containsKey(name)) {
				problems.add("refers to #" + name + ", which is not a parameter of the method");
			}
		}
		else if (node instanceof FunctionReference) {
			String ast = node.toStringAST();
			int paren = ast.indexOf('(');
			problems.add("calls function " + ((paren > 0) ? ast.substring(0, paren) : ast)
					+ ", but no functions are registered");
		}
		else if (node instanceof PropertyOrFieldReference property && rootContext
				&& !LockExpressionRoot.PROPERTIES.contains(property.getName())) {
			problems.add("names '" + property.getName() + "', which is neither a variable nor a property of #root "
					+ LockExpressionRoot.PROPERTIES + ": write #" + property.getName() + " for a parameter or '"
					+ property.getName() + "' in quotes for a literal");
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			SpelNode child = node.getChild(i);
			boolean childRoot;
			if (node instanceof MethodReference) {
				childRoot = true; // SpEL evaluates method arguments against the root
									// object
			}
			else if (node instanceof CompoundExpression) {
				childRoot = rootContext && i == 0;
			}
			else if (node instanceof Indexer || node instanceof Selection || node instanceof Projection) {
				childRoot = false;
			}
			else {
				childRoot = rootContext;
			}
			check(child, childRoot, variables, problems);
		}
	}

	/**
	 * An evaluation context whose variables are the call's arguments, looked up by
	 * precomputed index. One per thread, reused call after call: the root object is
	 * passed to each evaluation, the arguments set around it.
	 */
	private static final class ArgumentsContext extends StandardEvaluationContext {

		@Nullable Object @Nullable [] args;

		Map<String, Integer> indexes = Map.of();

		@Override
		public @Nullable Object lookupVariable(String name) {
			Integer index = this.indexes.get(name);
			Object[] current = this.args;
			if (index != null && current != null && index < current.length) {
				return current[index];
			}
			return super.lookupVariable(name);
		}

	}

}
