package dev.distlock.etcd.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * {@link EtcdConnectionDetails} from {@code distlock.etcd.*}.
 */
class PropertiesEtcdConnectionDetails implements EtcdConnectionDetails {

	private final EtcdLockProperties properties;

	PropertiesEtcdConnectionDetails(EtcdLockProperties properties) {
		this.properties = properties;
	}

	@Override
	public List<String> getEndpoints() {
		return this.properties.getEndpoints();
	}

	@Override
	public @Nullable String getUsername() {
		return this.properties.getUsername();
	}

	@Override
	public @Nullable String getPassword() {
		return this.properties.getPassword();
	}

}
