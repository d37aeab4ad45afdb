package dev.distlock.etcd.autoconfigure;

import java.util.List;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * {@link EtcdConnectionDetails} from a Docker Compose service of an etcd image (client
 * port 2379, plain HTTP, no authentication). Registered in
 * {@code META-INF/spring.factories}.
 */
class EtcdDockerComposeConnectionDetailsFactory extends DockerComposeConnectionDetailsFactory<EtcdConnectionDetails> {

	private static final int CLIENT_PORT = 2379;

	EtcdDockerComposeConnectionDetailsFactory() {
		super(new String[] { "coreos/etcd", "etcd-development/etcd", "bitnami/etcd" }, "io.etcd.jetcd.Client");
	}

	@Override
	protected EtcdConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new EtcdDockerComposeConnectionDetails(source.getRunningService());
	}

	static final class EtcdDockerComposeConnectionDetails extends DockerComposeConnectionDetails
			implements EtcdConnectionDetails {

		private final List<String> endpoints;

		EtcdDockerComposeConnectionDetails(RunningService service) {
			super(service);
			this.endpoints = List.of("http://" + service.host() + ":" + service.ports().get(CLIENT_PORT));
		}

		@Override
		public List<String> getEndpoints() {
			return this.endpoints;
		}

	}

}
