package dev.distlock.sample.page;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The demos the page's buttons run, each on the sample's own services, so every call goes
 * through their annotations as a request would. Each has the text the page shows (with
 * {@code ${...}} placeholders for the settings it depends on) and the source snippets
 * behind it, which {@link DemoCode} reads from the class path.
 */
public enum Demo {

	/** Six reservations of one SKU at once: one MUTEX holder at a time, tokens rising. */
	STOCK("Reserve stock under contention",
			"Six reservations of one SKU at once. The SKU's MUTEX lets one in at a time, across instances: each "
					+ "reservation reads the stock and writes it back without a gap, and the fencing tokens rise "
					+ "in the order the holds happened.",
			java("stock/StockService.java", "reserve")),

	/**
	 * A deposit stalls past its lease; a second lock template takes over and writes; the
	 * stale write is refused.
	 */
	FENCED("Fenced write with a paused holder",
			"A deposit takes the account's lock with a fixed ${sample.account.lease} lease, reads the balance, "
					+ "then stalls past the lease. Once the lease ends, a second lock template (another instance) "
					+ "takes the lock with a newer token and writes. The stalled holder's write is refused: "
					+ "JdbcFencing finds the row written with a greater token and throws "
					+ "StaleFencingTokenException. Takes about the lease plus 1.5 s.",
			java("accounts/AccountService.java", "deposit"), java("page/DemoScenarios.java", "fenced")),

	/**
	 * Transfers in both directions between two accounts, both keys locked together.
	 */
	TRANSFER("Transfer: two accounts locked together",
			"Six transfers at once between two accounts, three each way. Each locks both accounts in one "
					+ "@DistributedLock (the key expression gives a list), all or none, in sorted order, so no "
					+ "two transfers deadlock holding one account each; the total of both balances stays the same.",
			java("accounts/TransferService.java", "transfer")),

	/** Five cars at three spaces: a SEMAPHORE of three permits, the rest turned away. */
	CAR_PARK("Car park: 3 spaces, 5 cars",
			"Five cars arrive at a car park of three spaces: a SEMAPHORE of three permits. Three park for 2.5 s; "
					+ "two find no space within ${sample.car-park.wait-time} and the fallback method turns them away.",
			java("parking/CarPark.java", "park")),

	/**
	 * Readers share the catalogue's READ lock; a repricing takes the WRITE lock alone.
	 */
	CATALOGUE("Read/write catalogue",
			"Three readers share the catalogue's READ lock, a repricing takes its WRITE lock alone (after the "
					+ "readers, before the ones that come next), then three more readers share READ again.",
			java("prices/PriceCatalogue.java", "catalogue")),

	/**
	 * Two triggers of the report job at once and one a moment later: one builds, two
	 * skip.
	 */
	REPORT_JOB("Once-per-cluster job",
			"Every instance's scheduler fires the report job; the lock is tried once and a busy lock skips the "
					+ "run, and it stays taken ${sample.report-job.hold-at-least} after it was taken. A press plays "
					+ "one period: two triggers at the same moment (one builds for ${sample.report-job.duration}, "
					+ "the other skips), then a third after the build ended but within hold-at-least, which skips "
					+ "too: 1 built, 2 skipped. Each press builds a report of its own, so it never meets the "
					+ "schedule's daily report.",
			java("jobs/ReportJob.java", "report-job"), java("jobs/ReportSchedule.java", "schedule"),
			java("page/DemoScenarios.java", "report-job")),

	/** A batch of three parts and a step that waits for all of them. */
	LATCH("Latch: wait for three parts",
			"A batch of three parts sets a latch to 3. A step waits on it while three workers finish a part "
					+ "each and count it down; the step goes on when the count reaches 0, just after the last part.",
			java("batch/BatchService.java", "batch")),

	/** Leader election: a rival candidate takes over when this instance yields. */
	LEADER("Leader election",
			"Every instance runs for leader (distlock.leader.enabled) and @LeaderOnly methods run on the leader "
					+ "only. A rival candidate joins the group; this instance yields, the rival leads with a greater "
					+ "term token and the @LeaderOnly call here is skipped; the rival stops and this instance leads "
					+ "again. With another instance leading, this one's calls are skipped.",
			java("leader/LeaderTasks.java", "leader"), resource("application.yml", "leader"));

	private final String title;

	private final String description;

	private final List<Snippet> code;

	Demo(String title, String description, Snippet... code) {
		this.title = title;
		this.description = description;
		this.code = List.of(code);
	}

	/**
	 * How the page names it.
	 * @return the title
	 */
	public String title() {
		return this.title;
	}

	/**
	 * What it shows and what it reports, with {@code ${...}} placeholders for the
	 * settings it depends on.
	 * @return the text
	 */
	public String description() {
		return this.description;
	}

	/**
	 * The source it runs.
	 * @return the snippets
	 */
	public List<Snippet> code() {
		return this.code;
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

	private static Snippet java(String file, String tag) {
		return new Snippet("dev/distlock/sample/" + file, tag);
	}

	private static Snippet resource(String file, String tag) {
		return new Snippet(file, tag);
	}

	/**
	 * A tagged region of one of the sample's files: the lines between
	 * {@code tag::<tag>[]} and {@code end::<tag>[]} comments.
	 *
	 * @param file the file: a Java source ({@code dev/distlock/sample/...java}) or a
	 * resource ({@code application.yml})
	 * @param tag the region's tag
	 */
	public record Snippet(String file, String tag) {

		/**
		 * Whether it is Java source (under {@code src/main/java}; otherwise under
		 * {@code src/main/resources}).
		 * @return {@code true} for a {@code .java} file
		 */
		public boolean isJava() {
			return this.file.endsWith(".java");
		}

	}

}
