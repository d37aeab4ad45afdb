package dev.distlock.etcd.autoconfigure;

import java.util.List;

import org.testcontainers.containers.Container;

import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;

/**
 * {@link EtcdConnectionDetails} from a {@code @ServiceConnection} container of an etcd
 * image (client port 2379, plain HTTP, no authentication). Registered in
 * {@code META-INF/spring.factories}.
 */
class EtcdContainerConnectionDetailsFactory
		extends ContainerConnectionDetailsFactory<Container<?>, EtcdConnectionDetails> {

	private static final int CLIENT_PORT = 2379;

	EtcdContainerConnectionDetailsFactory() {
		super(List.of("coreos/etcd", "etcd-development/etcd", "bitnami/etcd"), "io.etcd.jetcd.Client");
	}

	@Override
	protected EtcdConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
		return new EtcdContainerConnectionDetails(source);
	}

	static final class EtcdContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
			implements EtcdConnectionDetails {

		private EtcdContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
			super(source);
		}

		@Override
		public List<String> getEndpoints() {
			Container<?> container = getContainer();
			return List.of("http://" + container.getHost() + ":" + container.getMappedPort(CLIENT_PORT));
		}

	}

}
