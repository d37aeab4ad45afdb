package dev.distlock.leader;

/**
 * This instance leads the group: it holds the group's lock. Start leader-only work here;
 * its fencing token is {@code getTerm().fencingToken()}.
 *
 * @since 0.1.0
 */
public class LeadershipGrantedEvent extends LeadershipEvent {

	private static final long serialVersionUID = 1L;

	LeadershipGrantedEvent(LeaderCandidate candidate, LeaderTerm term) {
		super(candidate, term);
	}

}
