package dev.distlock.sample.leader;

import dev.distlock.core.LockContext;
import dev.distlock.leader.LeaderOnly;
import dev.distlock.sample.InstanceName;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Service;

/**
 * Work for one instance of the cluster: every instance runs for leader of the group
 * ({@code distlock.leader.enabled=true} in {@code application.yml}; the group is
 * {@code spring.application.name}), and a {@link LeaderOnly @LeaderOnly} method runs on
 * the leader only; elsewhere the call is skipped and returns {@code null}. While it runs,
 * the current lease is the leader's, so its fencing token is the term's: greater than
 * every earlier leader's, for writes that must refuse a former leader.
 */
@Service
public class LeaderTasks {

	private final InstanceName instance;

	LeaderTasks(InstanceName instance) {
		this.instance = instance;
	}

	// tag::leader[]
	/**
	 * Publishes the cluster's digest, on the leader only.
	 * @return what was published, or {@code null} when this instance does not lead
	 */
	@LeaderOnly
	public @Nullable Digest publishDigest() {
		long term = LockContext.currentLease().fencingToken(); // the leader's term
		return new Digest(this.instance.toString(), term);
	}
	// end::leader[]

	/**
	 * A digest published by the leader.
	 *
	 * @param publishedBy the leading instance
	 * @param term the fencing token of its term
	 */
	public record Digest(String publishedBy, long term) {
	}

}
