package dev.distlock.zookeeper.autoconfigure;

import dev.distlock.core.LockConfigurationException;

/**
 * {@link ZooKeeperConnectionDetails} from {@code distlock.zookeeper.connect-string}.
 */
class PropertiesZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

	private final ZooKeeperLockProperties properties;

	PropertiesZooKeeperConnectionDetails(ZooKeeperLockProperties properties) {
		this.properties = properties;
	}

	@Override
	public String getConnectString() {
		String connectString = this.properties.getConnectString();
		if (connectString == null || connectString.isBlank()) {
			throw new LockConfigurationException("distlock.zookeeper.connect-string must be set");
		}
		return connectString;
	}

}
