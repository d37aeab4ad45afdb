package dev.distlock.etcd.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the etcd backend's own jetcd client connects. Defaults to
 * {@code distlock.etcd.endpoints}, {@code username} and {@code password}; a
 * {@code @ServiceConnection} etcd container or a Docker Compose etcd service supplies one
 * in its place. Unused when the application defines its own jetcd {@code Client} bean.
 *
 * @since 0.4.0
 */
public interface EtcdConnectionDetails extends ConnectionDetails {

	/**
	 * The client URLs of the cluster's members, such as {@code http://127.0.0.1:2379}.
	 * @return the endpoints, at least one
	 */
	List<String> getEndpoints();

	/**
	 * The user to authenticate as.
	 * @return the user, or {@code null} to connect without authentication
	 */
	default @Nullable String getUsername() {
		return null;
	}

	/**
	 * The user's password.
	 * @return the password, or {@code null}
	 */
	default @Nullable String getPassword() {
		return null;
	}

}
