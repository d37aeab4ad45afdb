package dev.distlock.leader;

/**
 * This instance no longer leads the group: it yielded, stopped, or its lease was lost or
 * could not be renewed in time. In the last case the term was marked over as soon as the
 * loss was known, by the lease's own clock, before the backend lease ends and another
 * instance can lead; the event follows at once. Stop leader-only work here; writes fenced
 * with the term's token are refused once a newer leader has written.
 *
 * @since 0.1.0
 */
public class LeadershipRevokedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	private final String reason;

	LeadershipRevokedEvent(LeaderCandidate candidate, LeaderTerm term, String reason) {
		super(candidate, term);
		this.reason = reason;
	}

	/**
	 * Why leadership ended.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
