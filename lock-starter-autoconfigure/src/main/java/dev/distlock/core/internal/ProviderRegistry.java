package dev.distlock.core.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.spi.LockProvider;
import org.jspecify.annotations.Nullable;

/**
 * The backends a template can lock with, by name, and the one used when a request names
 * none.
 */
final class ProviderRegistry {

	private final Map<String, LockProvider<?>> byName;

	private final LockProvider<?> defaultProvider;

	ProviderRegistry(Collection<? extends LockProvider<?>> providers, String defaultName) {
		Map<String, LockProvider<?>> named = new LinkedHashMap<>();
		for (LockProvider<?> provider : providers) {
			LockProvider<?> clash = named.put(provider.name(), provider);
			if (clash != null) {
				throw new LockConfigurationException("Two lock providers are named '" + provider.name() + "': "
						+ clash.getClass().getName() + " and " + provider.getClass().getName());
			}
		}
		if (named.isEmpty()) {
			throw new LockConfigurationException("No lock provider is configured");
		}
		LockProvider<?> chosen = named.get(defaultName);
		if (chosen == null) {
			throw unknown(defaultName, named.keySet());
		}
		this.byName = Map.copyOf(named);
		this.defaultProvider = chosen;
	}

	static LockConfigurationException unknown(String name, Collection<String> available) {
		return new LockConfigurationException("Unknown lock provider '" + name + "'; available: " + available
				+ ". Set distlock.provider (or the annotation's provider) to one of them, or add the backend's "
				+ "client library and connection settings");
	}

	LockProvider<?> get(@Nullable String name) {
		if (name == null) {
			return this.defaultProvider;
		}
		LockProvider<?> provider = this.byName.get(name);
		if (provider == null) {
			throw unknown(name, this.byName.keySet());
		}
		return provider;
	}

	/**
	 * The provider of a request, checked to support the request's type.
	 * @throws LockConfigurationException if the provider is unknown or lacks the type
	 */
	LockProvider<?> forRequest(LockRequest request) {
		LockProvider<?> provider = get(request.provider());
		if (!provider.supportedTypes().contains(request.type())) {
			throw new LockConfigurationException(
					"Lock provider '" + provider.name() + "' does not support " + request.type() + " locks (lock '"
							+ request.key() + "'); it supports " + provider.supportedTypes());
		}
		Duration lease = request.lease();
		if (lease != null && lease.compareTo(provider.minimumLease()) < 0) {
			throw new LockConfigurationException("Lease " + lease + " of lock '" + request.key() + "' is shorter than "
					+ provider.minimumLease() + ", the shortest lease lock provider '" + provider.name() + "' honours");
		}
		return provider;
	}

	Map<String, LockProvider<?>> byName() {
		return this.byName;
	}

	LockProvider<?> defaultProvider() {
		return this.defaultProvider;
	}

}
