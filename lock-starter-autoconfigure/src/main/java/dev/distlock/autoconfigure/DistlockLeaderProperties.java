package dev.distlock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Leader election ({@code distlock.leader.*}): one candidate per application instance.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock.leader")
public class DistlockLeaderProperties {

	/**
	 * Whether this instance runs for leader of its group.
	 */
	private boolean enabled;

	/**
	 * Name of the group whose instances elect one leader. Defaults to
	 * spring.application.name, else "application".
	 */
	private @Nullable String group;

	/**
	 * Lease the leader holds and renews every third of it: how long a crashed or paused
	 * leader keeps the group without a leader.
	 */
	private Duration lease = Duration.ofSeconds(15);

	/**
	 * Backend to elect on (a lock provider's name). Defaults to distlock.provider.
	 */
	private @Nullable String provider;

	/**
	 * Id of this instance's candidate, shown in events and the leader endpoint. Defaults
	 * to host name and process id.
	 */
	private @Nullable String candidateId;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getGroup() {
		return this.group;
	}

	public void setGroup(@Nullable String group) {
		this.group = group;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public @Nullable String getProvider() {
		return this.provider;
	}

	public void setProvider(@Nullable String provider) {
		this.provider = provider;
	}

	public @Nullable String getCandidateId() {
		return this.candidateId;
	}

	public void setCandidateId(@Nullable String candidateId) {
		this.candidateId = candidateId;
	}

}
