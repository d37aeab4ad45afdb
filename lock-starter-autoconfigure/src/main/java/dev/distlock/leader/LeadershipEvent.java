package dev.distlock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * Base of the leadership events a {@link LeaderCandidate} publishes, in order (a grant,
 * then its revocation), from one thread of the candidate's.
 *
 * @since 0.1.0
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient LeaderTerm term;

	LeadershipEvent(LeaderCandidate candidate, LeaderTerm term) {
		super(candidate);
		this.term = term;
	}

	/**
	 * The term granted or revoked.
	 * @return the term
	 */
	public LeaderTerm getTerm() {
		return this.term;
	}

	/**
	 * The leadership group.
	 * @return the group name
	 */
	public String getGroup() {
		return this.term.group();
	}

}
