package dev.distlock.zookeeper.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the ZooKeeper backend's own Curator client connects. Defaults to
 * {@code distlock.zookeeper.connect-string}; a {@code @ServiceConnection} ZooKeeper
 * container or a Docker Compose {@code zookeeper} service supplies one in its place.
 * Unused when the application defines its own {@code CuratorFramework} bean.
 *
 * @since 0.4.0
 */
public interface ZooKeeperConnectionDetails extends ConnectionDetails {

	/**
	 * The servers, as {@code host:port} pairs separated by commas, optionally followed by
	 * a chroot path.
	 * @return the connect string
	 */
	String getConnectString();

}
