package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.core.Lease;
import dev.distlock.core.LockConfigurationException;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * This instance's candidacy for leading a group: while running, it tries to take the
 * group's lock ({@code leader:<group>}) through {@link LockTemplate}; holding it, it
 * leads, renews the lease each time a third of it has passed, and publishes
 * {@link LeadershipGrantedEvent}. Leadership is revoked, with
 * {@link LeadershipRevokedEvent}, when the candidate {@link #yieldLeadership() yields} or
 * stops, and the moment the lease is lost: the backend refused a renewal, the session
 * ended, or the lease ran out by its own clock (counted from when the granting or
 * renewing request was sent, so before the backend frees the lock for another instance).
 * A process paused past its lease learns it was revoked when it resumes; until then only
 * fencing ({@link LeaderTerm#fencingToken()}) protects resources from it.
 * <p>
 * Thread-safe. One thread per candidate runs the election and the renewals; events are
 * published in order from another.
 *
 * @since 0.1.0
 */
public class LeaderCandidate implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(LeaderCandidate.class);

	private static final Duration MAX_RETRY = Duration.ofSeconds(1);

	private final LockTemplate locks;

	private final LockRequest request;

	private final Duration lease;

	private final String id;

	private final ApplicationEventPublisher publisher;

	private final CustomizableThreadFactory threads;

	private volatile @Nullable LeaderTerm term;

	private volatile @Nullable Thread elector;

	private volatile @Nullable ExecutorService events;

	private volatile long yieldUntilNanos;

	private volatile boolean running;

	/**
	 * Creates a candidate; it competes once {@link #start() started}.
	 * @param locks the template to lock with
	 * @param group the group's name: instances with the same name elect one leader
	 * @param lease the lease held while leading: how long a dead or paused leader blocks
	 * the group
	 * @param provider the backend to lock on, or {@code null} for the default
	 * @param id this candidate's id, shown in events and the {@code leader} endpoint
	 * @param publisher where events go
	 * @throws LockConfigurationException if the group is blank or the lease is shorter
	 * than 300 ms
	 */
	public LeaderCandidate(LockTemplate locks, String group, Duration lease, @Nullable String provider, String id,
			ApplicationEventPublisher publisher) {
		if (group == null || group.isBlank()) {
			throw new LockConfigurationException("distlock.leader.group must not be blank");
		}
		if (lease == null || lease.compareTo(Duration.ofMillis(300)) < 0) {
			throw new LockConfigurationException("distlock.leader.lease must be at least 300ms, was " + lease);
		}
		this.locks = locks;
		this.lease = lease;
		this.id = id;
		this.publisher = publisher;
		this.request = LockRequest.builder("leader:" + group)
			.name("leader")
			.lease(lease)
			.waitTime(lease)
			.provider(provider)
			.build();
		this.threads = new CustomizableThreadFactory("distlock-leader-" + group + "-");
		this.threads.setDaemon(true);
		locks.provider(this.request);
	}

	/**
	 * The group's name.
	 * @return the group
	 */
	public String getGroup() {
		return this.request.key().substring("leader:".length());
	}

	/**
	 * This candidate's id.
	 * @return the id
	 */
	public String getId() {
		return this.id;
	}

	/**
	 * The lease held while leading.
	 * @return the lease
	 */
	public Duration getLease() {
		return this.lease;
	}

	/**
	 * Whether this instance leads now: it holds a term that was not revoked and whose
	 * lease is valid by its own clock.
	 * @return {@code true} if leading
	 */
	public boolean isLeader() {
		LeaderTerm current = this.term;
		return current != null && current.isValid();
	}

	/**
	 * The current term, while leading.
	 * @return the valid term, or empty
	 */
	public Optional<LeaderTerm> currentTerm() {
		LeaderTerm current = this.term;
		return (current != null && current.isValid()) ? Optional.of(current) : Optional.empty();
	}

	/**
	 * Gives up leadership if held and re-runs the election after a pause (the lease's
	 * third, at most one second), so that another candidate, woken by the release, takes
	 * over first. No-op when not leading.
	 * @return {@code true} if leadership was given up
	 */
	public boolean yieldLeadership() {
		LeaderTerm current = this.term;
		if (current == null) {
			return false;
		}
		this.yieldUntilNanos = System.nanoTime() + retryDelay().toNanos();
		return revoke(current, "yielded");
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.events = Executors
			.newSingleThreadExecutor(new CustomizableThreadFactory("distlock-leader-events-" + getGroup() + "-"));
		Thread thread = this.threads.newThread(this::elect);
		this.elector = thread;
		thread.start();
	}

	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.running = false;
		LeaderTerm current = this.term;
		if (current != null) {
			revoke(current, "stopped");
		}
		Thread thread = this.elector;
		if (thread != null) {
			thread.interrupt();
			try {
				thread.join(this.lease.toMillis() + 1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		ExecutorService publishing = this.events;
		if (publishing != null) {
			publishing.shutdown();
			try {
				publishing.awaitTermination(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private void elect() {
		while (this.running) {
			long pause = this.yieldUntilNanos - System.nanoTime();
			if (pause > 0) {
				LockSupport.parkNanos(this, pause);
				continue;
			}
			try {
				Optional<Lease> lease = this.locks.tryAcquire(this.request);
				if (lease.isPresent()) {
					lead(lease.get());
				}
			}
			catch (RuntimeException ex) {
				if (!this.running) {
					return;
				}
				logger.warn("Election of group '" + getGroup() + "' failed; retrying in " + retryDelay(), ex);
				LockSupport.parkNanos(this, retryDelay().toNanos());
			}
		}
	}

	private void lead(Lease lease) {
		LeaderTerm current = new LeaderTerm(getGroup(), this.id, lease, Instant.now());
		this.term = current;
		publish(new LeadershipGrantedEvent(this, current));
		// the lease's clock fires this the moment the lease is lost or runs out, whatever
		// this thread is doing
		lease.onLost(() -> revoke(current, "its lease was lost"));
		long keep = this.lease.toNanos() * 2 / 3;
		try {
			// renew once a third of the lease has passed by the lease's clock (a grant
			// may come late in its lease)
			while (this.running && !current.awaitEnd(current.nanosUntilOnly(keep))) {
				try {
					lease.extend(this.lease);
				}
				catch (RuntimeException ex) {
					revoke(current, "its lease could not be renewed: " + ex.getMessage());
				}
			}
		}
		catch (InterruptedException ex) {
			// stopping
		}
		finally {
			revoke(current, "stopped");
			lease.release();
			this.term = null;
		}
	}

	private boolean revoke(LeaderTerm current, String reason) {
		if (!current.revoke(reason)) {
			return false;
		}
		logger.info("Leadership of group '" + getGroup() + "' revoked for " + this.id + ": " + reason);
		publish(new LeadershipRevokedEvent(this, current, reason));
		return true;
	}

	private void publish(LeadershipEvent event) {
		ExecutorService publishing = this.events;
		if (publishing == null) {
			return;
		}
		try {
			publishing.execute(() -> {
				try {
					this.publisher.publishEvent(event);
				}
				catch (RuntimeException ex) {
					logger.warn("A listener of " + event.getClass().getSimpleName() + " failed", ex);
				}
			});
		}
		catch (java.util.concurrent.RejectedExecutionException ex) {
			logger.debug("Not published after stop: " + event);
		}
	}

	private Duration retryDelay() {
		Duration third = this.lease.dividedBy(3);
		return (third.compareTo(MAX_RETRY) < 0) ? third : MAX_RETRY;
	}

	@Override
	public String toString() {
		return "LeaderCandidate[group=" + getGroup() + ", id=" + this.id + ", leader=" + isLeader() + "]";
	}

}
