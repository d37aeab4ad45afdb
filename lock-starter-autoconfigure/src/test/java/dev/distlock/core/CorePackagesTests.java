package dev.distlock.core;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's layout by reader (docs/core.md): a small API, the helpers a backend may use
 * apart from the SPI's contracts, and no public API, callback, SPI or support type that
 * names an engine type in what callers can see.
 */
class CorePackagesTests {

	private static final String ENGINE = "dev.distlock.core.internal.";

	@Test
	void theUserApiHasAtMostFifteenPublicTypes() throws Exception {
		List<String> api = publicTypes("dev/distlock/core");
		assertThat(api).as("public types of dev.distlock.core")
			.hasSizeLessThanOrEqualTo(15)
			.contains("LockOperations", "LockTemplate", "LockRequest", "Lease", "LockType", "LockContext");
	}

	@Test
	void noPublicApiOrSpiSignatureNamesAnEngineType() throws Exception {
		List<String> leaks = new ArrayList<>();
		for (String pkg : List.of("dev/distlock/core", "dev/distlock/core/spi", "dev/distlock/core/support",
				"dev/distlock/core/callback")) {
			for (Class<?> type : classes(pkg)) {
				if (!Modifier.isPublic(type.getModifiers())) {
					continue;
				}
				for (Method method : type.getDeclaredMethods()) {
					if (Modifier.isPublic(method.getModifiers()) || Modifier.isProtected(method.getModifiers())) {
						check(type, method, method.getGenericReturnType(), leaks);
						checkParameters(type, method, leaks);
					}
				}
				for (Constructor<?> constructor : type.getDeclaredConstructors()) {
					if (Modifier.isPublic(constructor.getModifiers())
							|| Modifier.isProtected(constructor.getModifiers())) {
						checkParameters(type, constructor, leaks);
					}
				}
				for (Field field : type.getDeclaredFields()) {
					if (Modifier.isPublic(field.getModifiers()) || Modifier.isProtected(field.getModifiers())) {
						check(type, field, field.getGenericType(), leaks);
					}
				}
			}
		}
		assertThat(leaks).as("public signatures that name an engine type").isEmpty();
	}

	@Test
	void helpersABackendMayUseSitApartFromTheContractsItImplements() throws Exception {
		assertThat(publicTypes("dev/distlock/core/support")).as("public types of dev.distlock.core.support")
			.containsExactlyInAnyOrder("SharedTimer", "WakeUpSignal");
		assertThat(publicTypes("dev/distlock/core/spi")).as("public types of dev.distlock.core.spi")
			.doesNotContain("SharedTimer", "WakeUpSignal")
			.contains("LockProvider", "TryOnceLockProvider", "LockWaiter");
		List<String> upward = new ArrayList<>();
		for (Class<?> type : classes("dev/distlock/core/support")) {
			for (Method method : type.getDeclaredMethods()) {
				for (Type used : method.getGenericParameterTypes()) {
					if (used.getTypeName().startsWith("dev.distlock.")) {
						upward.add(type.getName() + ": " + method);
					}
				}
				if (method.getGenericReturnType().getTypeName().startsWith("dev.distlock.")) {
					upward.add(type.getName() + ": " + method);
				}
			}
		}
		assertThat(upward)
			.as("support members that name another distlock type (the SPI depends on support, "
					+ "never the other way)")
			.isEmpty();
	}

	private static void checkParameters(Class<?> type, Executable executable, List<String> leaks) {
		for (Type parameter : executable.getGenericParameterTypes()) {
			check(type, executable, parameter, leaks);
		}
	}

	private static void check(Class<?> type, Object member, Type used, List<String> leaks) {
		if (used.getTypeName().contains(ENGINE)) {
			leaks.add(type.getName() + ": " + member);
		}
	}

	private static List<String> publicTypes(String pkg) throws Exception {
		return classes(pkg).stream()
			.filter((type) -> Modifier.isPublic(type.getModifiers()) && type.getEnclosingClass() == null)
			.map(Class::getSimpleName)
			.toList();
	}

	private static List<Class<?>> classes(String pkg) throws Exception {
		List<Class<?>> classes = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + pkg + "/*.class")) {
			String name = resource.getFilename();
			if (name != null && !name.equals("package-info.class")) {
				classes.add(Class.forName(pkg.replace('/', '.') + "." + name.substring(0, name.length() - 6)));
			}
		}
		return classes;
	}

}
