package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code distlockLeader} actuator endpoint ({@code /actuator/distlockLeader}): this
 * instance's candidacy (group, id, whether it leads, the term's token, since when and
 * until when). Read-only by default; with
 * {@code management.endpoint.distlockleader.access=unrestricted} a POST makes this
 * instance yield leadership and re-run the election.
 *
 * @since 0.1.0
 */
@Endpoint(id = LeaderEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class LeaderEndpoint {

	/** The endpoint's id. */
	public static final String ID = "distlockLeader";

	private final LeaderCandidate candidate;

	/**
	 * Creates the endpoint.
	 * @param candidate this instance's candidate
	 */
	public LeaderEndpoint(LeaderCandidate candidate) {
		this.candidate = candidate;
	}

	/**
	 * This instance's view of the group's leadership.
	 * @return the report
	 */
	@ReadOperation
	public LeaderDescriptor leader() {
		LeaderTerm term = this.candidate.currentTerm().orElse(null);
		return new LeaderDescriptor(this.candidate.getGroup(), this.candidate.getId(), term != null,
				this.candidate.getLease(), (term != null) ? term.fencingToken() : null,
				(term != null) ? term.grantedAt() : null, (term != null) ? term.expiresAt() : null);
	}

	/**
	 * Yields leadership if this instance leads; the election runs again after a short
	 * pause.
	 * @return the report after yielding
	 */
	@WriteOperation
	public LeaderDescriptor yieldLeadership() {
		this.candidate.yieldLeadership();
		return leader();
	}

	/**
	 * What the endpoint shows.
	 *
	 * @param group the leadership group
	 * @param candidateId this instance's candidate id
	 * @param leader whether this instance leads now
	 * @param lease the lease a leader holds
	 * @param fencingToken the current term's fencing token, or {@code null} when not
	 * leading
	 * @param since when this instance's term began, or {@code null}
	 * @param expiresAt when the term's lease ends unless renewed, or {@code null}
	 */
	public record LeaderDescriptor(String group, String candidateId, boolean leader, Duration lease,
			@Nullable Long fencingToken, @Nullable Instant since,
			@Nullable Instant expiresAt) implements OperationResponseBody {
	}

}
