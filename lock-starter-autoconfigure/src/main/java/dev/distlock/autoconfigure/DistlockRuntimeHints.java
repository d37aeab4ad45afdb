package dev.distlock.autoconfigure;

import dev.distlock.annotation.LockExpressionRoot;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What distlock reads at run time that Spring's ahead-of-time processing cannot see in
 * the bean definitions: the Lua scripts of the {@code redis} and {@code redisson}
 * backends and the fencing helpers, the SQL of the {@code jdbc} backend (schema and
 * operations per dialect), and {@link LockExpressionRoot}, whose getters
 * {@code @DistributedLock} key expressions reach through reflection
 * ({@code #root.methodName}). Imported by {@link DistlockAutoConfiguration}; a GraalVM
 * native image needs it, a JVM started with {@code -Dspring.aot.enabled=true} does not
 * mind it.
 *
 * @since 0.1.0
 */
public class DistlockRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources()
			.registerPattern("dev/distlock/redis/*.lua")
			.registerPattern("dev/distlock/redisson/*.lua")
			.registerPattern("dev/distlock/jdbc/**")
			.registerPattern("dev/distlock/fencing/*.lua");
		hints.reflection().registerType(LockExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
