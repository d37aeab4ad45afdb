package dev.distlock.autoconfigure;

import java.lang.reflect.Constructor;
import java.util.List;
import java.util.Map;

import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.mock.env.MockEnvironment;

/**
 * The connection details Spring Boot derives from a Docker Compose service or a
 * {@code @ServiceConnection} container, without Docker: the sources are built as Boot
 * builds them (their constructors are package-private), around a described service or a
 * container that reports a host and mapped ports without being started, and handed to
 * every {@code ConnectionDetailsFactory} that {@code META-INF/spring.factories} lists.
 */
public final class ServiceConnectionSources {

	private ServiceConnectionSources() {
	}

	/**
	 * The connection details every registered factory derives from a Docker Compose
	 * service.
	 * @param image the service's image, such as {@code zookeeper:3.9}
	 * @param host the host its ports are published on
	 * @param ports container port to published port
	 * @return the details by type
	 */
	public static Map<Class<?>, ConnectionDetails> fromDockerCompose(String image, String host,
			Map<Integer, Integer> ports) throws Exception {
		RunningService service = new DescribedService(image, host, ports);
		Constructor<DockerComposeConnectionSource> constructor = DockerComposeConnectionSource.class
			.getDeclaredConstructor(RunningService.class, org.springframework.core.env.Environment.class);
		constructor.setAccessible(true);
		DockerComposeConnectionSource source = constructor.newInstance(service, new MockEnvironment());
		return new ConnectionDetailsFactories(ServiceConnectionSources.class.getClassLoader())
			.getConnectionDetails(source, false);
	}

	/**
	 * The connection details every registered factory derives from a
	 * {@code @ServiceConnection} container, initialized as Boot initializes the bean.
	 * @param image the container's image, such as {@code zookeeper:3.9}
	 * @param host the host its ports are mapped on
	 * @param ports container port to mapped port
	 * @return the details by type
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public static Map<Class<?>, ConnectionDetails> fromContainer(String image, String host, Map<Integer, Integer> ports)
			throws Exception {
		GenericContainer<?> container = new DescribedContainer(image, host, ports);
		Constructor<?> constructor = null;
		for (Constructor<?> candidate : ContainerConnectionSource.class.getDeclaredConstructors()) {
			if (candidate.getParameterTypes()[4] == MergedAnnotation.class) {
				constructor = candidate;
			}
		}
		constructor.setAccessible(true);
		Object source = constructor.newInstance("test", Origin.from("test"), GenericContainer.class, image,
				MergedAnnotation.of(ServiceConnection.class),
				(java.util.function.Supplier<Container<?>>) () -> container, null,
				MergedAnnotations.from(DescribedContainer.class));
		Map<Class<?>, ConnectionDetails> details = new ConnectionDetailsFactories(
				ServiceConnectionSources.class.getClassLoader())
			.getConnectionDetails(source, false);
		for (ConnectionDetails each : details.values()) {
			if (each instanceof InitializingBean bean) {
				bean.afterPropertiesSet();
			}
		}
		return details;
	}

	private record DescribedService(String imageName, String host,
			Map<Integer, Integer> published) implements RunningService, ConnectionPorts {

		@Override
		public String name() {
			return "service";
		}

		@Override
		public ImageReference image() {
			return ImageReference.of(this.imageName);
		}

		@Override
		public ConnectionPorts ports() {
			return this;
		}

		@Override
		public Map<String, String> env() {
			return Map.of();
		}

		@Override
		public Map<String, String> labels() {
			return Map.of();
		}

		@Override
		public int get(int containerPort) {
			Integer port = this.published.get(containerPort);
			if (port == null) {
				throw new IllegalStateException("No host port for container port " + containerPort);
			}
			return port;
		}

		@Override
		public List<Integer> getAll() {
			return List.copyOf(this.published.values());
		}

		@Override
		public List<Integer> getAll(String protocol) {
			return getAll();
		}

	}

	private static final class DescribedContainer extends GenericContainer<DescribedContainer> {

		private final String host;

		private final Map<Integer, Integer> mapped;

		DescribedContainer(String image, String host, Map<Integer, Integer> mapped) {
			super(image);
			this.host = host;
			this.mapped = mapped;
		}

		@Override
		public void start() {
			// described, not run: Boot starts a service connection's container before
			// reading it
		}

		@Override
		public String getHost() {
			return this.host;
		}

		@Override
		public Integer getMappedPort(int originalPort) {
			Integer port = this.mapped.get(originalPort);
			if (port == null) {
				throw new IllegalArgumentException("No mapped port for " + originalPort);
			}
			return port;
		}

	}

}
