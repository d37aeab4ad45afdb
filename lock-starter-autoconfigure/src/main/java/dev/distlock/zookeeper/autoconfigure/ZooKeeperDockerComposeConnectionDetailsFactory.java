package dev.distlock.zookeeper.autoconfigure;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * {@link ZooKeeperConnectionDetails} from a Docker Compose service of a ZooKeeper image
 * (client port 2181). Registered in {@code META-INF/spring.factories}.
 */
class ZooKeeperDockerComposeConnectionDetailsFactory
		extends DockerComposeConnectionDetailsFactory<ZooKeeperConnectionDetails> {

	private static final int CLIENT_PORT = 2181;

	ZooKeeperDockerComposeConnectionDetailsFactory() {
		super(new String[] { "zookeeper", "bitnami/zookeeper" }, "org.apache.curator.framework.CuratorFramework");
	}

	@Override
	protected ZooKeeperConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
		return new ZooKeeperDockerComposeConnectionDetails(source.getRunningService());
	}

	static final class ZooKeeperDockerComposeConnectionDetails extends DockerComposeConnectionDetails
			implements ZooKeeperConnectionDetails {

		private final String connectString;

		ZooKeeperDockerComposeConnectionDetails(RunningService service) {
			super(service);
			this.connectString = service.host() + ":" + service.ports().get(CLIENT_PORT);
		}

		@Override
		public String getConnectString() {
			return this.connectString;
		}

	}

}
