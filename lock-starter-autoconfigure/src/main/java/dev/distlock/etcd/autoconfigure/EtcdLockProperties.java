package dev.distlock.etcd.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of the etcd backend, under {@code distlock.etcd.*}. The connection
 * settings apply only when distlock creates its own jetcd client, that is when there is
 * no {@code io.etcd.jetcd.Client} bean and {@code endpoints} is set.
 *
 * @since 0.3.0
 */
@ConfigurationProperties("distlock.etcd")
@Validated
public class EtcdLockProperties {

	/**
	 * Whether to register this backend beside the default one; unset means only when
	 * distlock.provider names it or it is the only backend.
	 */
	private @Nullable Boolean enabled;

	/**
	 * etcd client URLs, e.g. http://etcd1:2379. Used only when the application defines no
	 * jetcd Client bean.
	 */
	private List<String> endpoints = new ArrayList<>();

	/**
	 * User name, when the cluster has authentication enabled.
	 */
	private @Nullable String username;

	/**
	 * Password of the user.
	 */
	private @Nullable String password;

	/**
	 * Prefix of every key distlock writes (locks under <root>/lock/, latches under
	 * <root>/latch/), without a trailing slash.
	 */
	private String root = "/distlock";

	/**
	 * How long the client waits to connect to an endpoint. Every call distlock makes is
	 * bounded by its wait time plus distlock.call-timeout, whatever this is.
	 */
	private Duration connectTimeout = Duration.ofSeconds(5);

	public @Nullable Boolean getEnabled() {
		return this.enabled;
	}

	public void setEnabled(@Nullable Boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getEndpoints() {
		return this.endpoints;
	}

	public void setEndpoints(List<String> endpoints) {
		this.endpoints = endpoints;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public String getRoot() {
		return this.root;
	}

	public void setRoot(String root) {
		this.root = root;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

}
