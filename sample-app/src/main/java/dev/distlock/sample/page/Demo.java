package dev.distlock.sample.page;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The demos the page's buttons run, each on the sample's own services, so every call goes
 * through their {@code @DistributedLock} annotations as a request would.
 */
public enum Demo {

	/** Six reservations of one SKU at once: one MUTEX holder at a time, tokens rising. */
	STOCK("Reserve stock under contention"),

	/**
	 * A deposit stalls past its lease; a second lock template takes over and writes; the
	 * stale write is refused.
	 */
	FENCED("Fenced write with a paused holder"),

	/** Five cars at three spaces: a SEMAPHORE of three permits, the rest turned away. */
	CAR_PARK("Car park: 3 spaces, 5 cars"),

	/**
	 * Readers share the catalogue's READ lock; a repricing takes the WRITE lock alone.
	 */
	CATALOGUE("Read/write catalogue"),

	/**
	 * The report job triggered twice at once: one builds, the other skips
	 * ({@code waitTime = 0}).
	 */
	REPORT_JOB("Once-per-cluster job");

	private final String title;

	Demo(String title) {
		this.title = title;
	}

	/**
	 * How the page names it.
	 * @return the title
	 */
	public String title() {
		return this.title;
	}

	/**
	 * The demo named in a URL ({@code car-park} for {@link #CAR_PARK}).
	 * @param name the name
	 * @return the demo
	 * @throws UnknownDemoException if there is none of that name
	 */
	public static Demo of(String name) {
		for (Demo demo : values()) {
			if (demo.path().equals(name)) {
				return demo;
			}
		}
		throw new UnknownDemoException(name, Arrays.stream(values()).map(Demo::path).collect(Collectors.joining(", ")));
	}

	/**
	 * Its name in a URL.
	 * @return the lower-case, hyphenated name
	 */
	public String path() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
