package dev.distlock.sample;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.Assert;

/**
 * The sample's own settings, {@code sample.*}; distlock's are {@code distlock.*}.
 * {@code application.yml} sets the durations the services' annotations read through
 * {@code ${sample...}} placeholders, so that they have one value in one place.
 *
 * @param instanceName name this instance records beside its work; blank means
 * {@code host:port}
 * @param scheduling the scheduled jobs
 * @param reportJob the once-per-cluster report job
 * @param account the fenced deposits
 * @param carPark the car park's semaphore
 * @param prices the price catalogue
 * @param timeline the page's record of lock calls
 * @param demo the contention demo run from the command line
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue("") String instanceName, @DefaultValue Scheduling scheduling,
		@DefaultValue ReportJob reportJob, @DefaultValue Account account, @DefaultValue CarPark carPark,
		@DefaultValue Prices prices, @DefaultValue Timeline timeline, @DefaultValue Demo demo) {

	// the annotations read these through placeholders, so application.yml holds their
	// values; a record default would be a second value
	private static void set(@Nullable Object value, String name) {
		Assert.notNull(value, () -> "sample." + name + " is not set (application.yml sets it)");
	}

	/**
	 * The scheduled jobs.
	 *
	 * @param enabled whether {@code @Scheduled} methods run (the contention demo turns
	 * them off)
	 */
	public record Scheduling(@DefaultValue("true") boolean enabled) {
	}

	/**
	 * The report job that every instance schedules and one builds per period.
	 *
	 * @param initialDelay delay before the first scheduled run
	 * @param interval time between the end of one scheduled run and the next
	 * @param duration how long building one report takes
	 * @param holdAtLeast how long the lock stays taken after a run started, so that an
	 * instance whose schedule fires a little later still skips
	 */
	public record ReportJob(Duration initialDelay, Duration interval, Duration duration, Duration holdAtLeast) {

		public ReportJob {
			set(initialDelay, "report-job.initial-delay");
			set(interval, "report-job.interval");
			set(duration, "report-job.duration");
			set(holdAtLeast, "report-job.hold-at-least");
		}

	}

	/**
	 * The fenced deposits.
	 *
	 * @param lease fixed lease of a deposit: a holder paused longer is fenced off
	 */
	public record Account(Duration lease) {

		public Account {
			set(lease, "account.lease");
		}

	}

	/**
	 * The car park.
	 *
	 * @param waitTime how long a car waits for a space before it is turned away
	 */
	public record CarPark(Duration waitTime) {

		public CarPark {
			set(waitTime, "car-park.wait-time");
		}

	}

	/**
	 * The price catalogue.
	 *
	 * @param pausePerPrice pause after writing each price during a repricing (to widen
	 * the window a reader would see)
	 */
	public record Prices(@DefaultValue("0ms") Duration pausePerPrice) {
	}

	/**
	 * The page's timeline.
	 *
	 * @param capacity lock calls kept in memory
	 */
	public record Timeline(@DefaultValue("300") int capacity) {
	}

	/**
	 * The contention demo; setting {@code ops} on the command line runs it at startup and
	 * exits.
	 *
	 * @param ops operations to run at startup; unset means no demo at startup
	 * @param threads threads contending for the key
	 * @param instances how many application instances the threads play, each with a
	 * {@code LockTemplate} of its own; unset means one per thread
	 * @param key the key they contend for (before {@code distlock.key-prefix})
	 * @param waitTime how long one operation waits for the lock before it counts as
	 * failed
	 */
	public record Demo(@Nullable Integer ops, @DefaultValue("8") int threads, @Nullable Integer instances,
			@DefaultValue("demo:counter") String key, @DefaultValue("30s") Duration waitTime) {

		/**
		 * Instances to play for the configured threads.
		 * @return {@code instances}, or {@code threads} when unset
		 */
		public int instancesOrThreads() {
			return (this.instances != null) ? this.instances : this.threads;
		}

	}

}
