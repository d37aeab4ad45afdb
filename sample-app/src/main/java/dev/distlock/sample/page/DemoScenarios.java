package dev.distlock.sample.page;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.fencing.JdbcFencing;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.leader.LeaderCandidate;
import dev.distlock.sample.InstanceName;
import dev.distlock.sample.SampleProperties;
import dev.distlock.sample.accounts.AccountService;
import dev.distlock.sample.accounts.TransferService;
import dev.distlock.sample.batch.BatchService;
import dev.distlock.sample.jobs.ReportJob;
import dev.distlock.sample.leader.LeaderTasks;
import dev.distlock.sample.parking.CarPark;
import dev.distlock.sample.prices.PriceCatalogue;
import dev.distlock.sample.stock.StockService;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

/**
 * Runs the page's demos in the background, each a burst of concurrent calls to the
 * sample's services, and keeps the last twenty runs with a one-line summary; a demo runs
 * once at a time per instance. The calls themselves land on the {@link LockTimeline}.
 */
@Service
public class DemoScenarios implements DisposableBean {

	static final String SKU = "ESPRESSO-MACHINE";

	static final String ACCOUNT = "page-demo";

	static final String TRANSFER_A = "page-transfer-a";

	static final String TRANSFER_B = "page-transfer-b";

	private final SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("demo-");

	private final List<DemoRun> runs = new ArrayList<>();

	private final Services services;

	private final LockTemplate locks;

	private final LockTimeline timeline;

	private final JdbcClient jdbc;

	private final JdbcFencing fencing;

	private final ObjectProvider<LeaderCandidate> leaderCandidate;

	private final InstanceName instance;

	private final SampleProperties properties;

	private long lastId;

	DemoScenarios(Services services, LockTemplate locks, LockTimeline timeline, JdbcClient jdbc, JdbcFencing fencing,
			ObjectProvider<LeaderCandidate> leaderCandidate, InstanceName instance, SampleProperties properties) {
		this.services = services;
		this.locks = locks;
		this.timeline = timeline;
		this.jdbc = jdbc;
		this.fencing = fencing;
		this.leaderCandidate = leaderCandidate;
		this.instance = instance;
		this.properties = properties;
		this.executor.setConcurrencyLimit(64);
	}

	/**
	 * Starts a demo in the background.
	 * @param demo the demo
	 * @return its run, not finished yet
	 * @throws DemoRunningException if the demo's previous run has not finished
	 */
	public DemoRun start(Demo demo) {
		DemoRun run;
		synchronized (this.runs) {
			Optional<DemoRun> running = this.runs.stream()
				.filter((each) -> each.demo() == demo && each.running())
				.findFirst();
			if (running.isPresent()) {
				throw new DemoRunningException(running.get());
			}
			run = new DemoRun(++this.lastId, demo, System.currentTimeMillis(), null, null, false);
			this.runs.add(0, run);
			// drop the oldest finished runs beyond twenty; a running one stays listed
			for (int i = this.runs.size() - 1; i >= 0 && this.runs.size() > 20; i--) {
				if (!this.runs.get(i).running()) {
					this.runs.remove(i);
				}
			}
		}
		DemoRun started = run;
		this.executor.execute(() -> {
			DemoRun finished = play(started);
			synchronized (this.runs) {
				this.runs.replaceAll((each) -> (each.id() == finished.id()) ? finished : each);
			}
		});
		return run;
	}

	/**
	 * The last runs, newest first.
	 * @return a snapshot
	 */
	public List<DemoRun> runs() {
		synchronized (this.runs) {
			return List.copyOf(this.runs);
		}
	}

	@Override
	public void destroy() {
		this.executor.close();
	}

	private DemoRun play(DemoRun run) {
		try {
			return run.finish(outcome(run), false);
		}
		catch (Exception ex) {
			return run.finish(ex.toString(), true);
		}
	}

	private String outcome(DemoRun run) throws Exception {
		return switch (run.demo()) {
			case STOCK -> reserveStock();
			case FENCED -> fencedWrite();
			case TRANSFER -> transferBothWays();
			case CAR_PARK -> parkCars();
			case CATALOGUE -> readAndReprice();
			case REPORT_JOB -> playOnePeriodOfTheReportJob(run);
			case LATCH -> waitForABatch(run);
			case LEADER -> handOverLeadership();
		};
	}

	private String reserveStock() throws Exception {
		StockService stock = this.services.stock();
		if (stock.quantity(SKU).orElse(0) < 6) {
			stock.restock(SKU, 100);
		}
		List<StockService.Reservation> reservations = all(6, (i) -> stock.reserve(SKU, 1));
		return "6 reservations of " + SKU + " one at a time, tokens "
				+ reservations.stream()
					.map(StockService.Reservation::lockToken)
					.sorted()
					.map(String::valueOf)
					.collect(Collectors.joining(", "))
				+ "; " + reservations.stream().mapToInt(StockService.Reservation::remaining).min().orElse(0) + " left";
	}

	private String fencedWrite() throws Exception {
		String key = "account:" + ACCOUNT;
		Duration lease = this.properties.account().lease();
		Duration pause = lease.plusMillis(1500);
		Future<AccountService.Deposit> paused = this.executor
			.submit(() -> this.services.accounts().deposit(ACCOUNT, 100, pause));
		long pausedToken = awaitHeld(key);
		LockProvider<?> provider = this.locks.defaultProvider();
		String successor = this.instance + " (second template)";
		long successorToken;
		// tag::fenced[]
		// a second LockTemplate plays a second instance (this instance's own callers
		// would queue behind the paused holder); it gets the lock when the lease ends
		try (LockTemplate other = new LockTemplate(List.of(provider), provider.name(), this.locks.settings(),
				List.of(this.timeline.as(successor)));
				Lease successorLease = other
					.acquire(LockRequest.builder(key).name("account").waitTime(lease.multipliedBy(3)).build())) {
			long balance = this.services.accounts().find(ACCOUNT).orElseThrow().balance();
			this.fencing.update("account").set("balance", balance + 5).where("id", ACCOUNT).execute(successorLease);
			successorToken = successorLease.fencingToken();
		}
		// end::fenced[]
		try {
			AccountService.Deposit deposit = paused.get(pause.toMillis() + 10_000, TimeUnit.MILLISECONDS);
			return "the paused holder's write went through with token " + deposit.lockToken()
					+ " (it was not refused: did its lease outlive the pause?)";
		}
		catch (ExecutionException ex) {
			String outcome = (ex.getCause() instanceof StaleFencingTokenException) ? "its write was refused: "
					: "it ended with: ";
			return "token " + pausedToken + " stalled " + pause.toMillis() + " ms past its " + lease.toMillis()
					+ " ms lease; " + successor + " took over with token " + successorToken + " and wrote; " + outcome
					+ ex.getCause().getMessage();
		}
	}

	private String transferBothWays() throws Exception {
		AccountService accounts = this.services.accounts();
		for (String account : List.of(TRANSFER_A, TRANSFER_B)) {
			if (accounts.find(account).isEmpty()) {
				accounts.reset(account, 100);
			}
		}
		// the richer account pays 10 three times, the other pays 7 back three times
		boolean aPays = balance(TRANSFER_A) >= balance(TRANSFER_B);
		String payer = aPays ? TRANSFER_A : TRANSFER_B;
		String payee = aPays ? TRANSFER_B : TRANSFER_A;
		long before = balance(TRANSFER_A) + balance(TRANSFER_B);
		TransferService transfers = this.services.transfers();
		List<TransferService.Transfer> done = all(6,
				(i) -> (i % 2 == 1) ? transfers.transfer(payer, payee, 10) : transfers.transfer(payee, payer, 7));
		long a = balance(TRANSFER_A);
		long b = balance(TRANSFER_B);
		return done.size() + " transfers at once, 3 of 10 from " + payer + " and 3 of 7 back, none deadlocked; "
				+ TRANSFER_A + " " + a + ", " + TRANSFER_B + " " + b + ": total " + before + " before, " + (a + b)
				+ " after";
	}

	private long balance(String account) {
		return this.services.accounts().find(account).map(AccountService.Account::balance).orElse(0L);
	}

	private String parkCars() throws Exception {
		CarPark carPark = this.services.carPark();
		List<CarPark.Visit> visits = all(5, (i) -> carPark.park("PAGE-" + i, Duration.ofMillis(2500)));
		long parked = visits.stream().filter(CarPark.Visit::parked).count();
		return parked + " of 5 cars parked (" + CarPark.CAPACITY + " spaces), " + (5 - parked) + " turned away";
	}

	private String readAndReprice() throws Exception {
		PriceCatalogue catalogue = this.services.catalogue();
		List<Callable<Long>> calls = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			int n = i;
			calls.add(() -> {
				Thread.sleep(25L * n); // readers, then the writer, then readers again
				return (n == 3) ? catalogue.reprice(1).lockToken() : catalogue.prices().lockToken();
			});
		}
		List<Long> tokens = all(calls);
		return "3 readers shared the READ lock, the repricing took WRITE (token " + tokens.get(3)
				+ ") alone, 3 more readers followed";
	}

	private String playOnePeriodOfTheReportJob(DemoRun run) throws Exception {
		ReportJob job = this.services.reportJob();
		// tag::report-job[]
		// a report of this press's own: the schedule's daily report keeps its lock
		String report = "page-" + this.instance + "-" + run.id();
		// two schedulers fire at the same moment: one builds, the other skips
		List<ReportJob.@Nullable JobRun> together = all(2, (i) -> job.build(report));
		long builtEnded = System.nanoTime();
		// a third fires after the build ended, within hold-at-least: it skips too
		ReportJob.JobRun late = job.build(report);
		// end::report-job[]
		long lateMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - builtEnded);
		long built = together.stream().filter((each) -> each != null).count() + ((late != null) ? 1 : 0);
		return "two triggers at once: " + together.stream().filter((each) -> each != null).count() + " built, "
				+ together.stream().filter((each) -> each == null).count() + " skipped; a third, " + lateMillis
				+ " ms after the build ended (hold-at-least " + this.properties.reportJob().holdAtLeast().toMillis()
				+ " ms): " + ((late != null) ? "built" : "skipped") + ". " + built + " built, " + (3 - built)
				+ " skipped";
	}

	private String waitForABatch(DemoRun run) throws Exception {
		BatchService batches = this.services.batches();
		String batch = "page-" + this.instance + "-" + run.id();
		if (!batches.start(batch, 3)) {
			throw new IllegalStateException("Batch " + batch + " is already running");
		}
		long started = System.nanoTime();
		Future<Long> step = this.executor.submit(() -> {
			boolean complete = batches.awaitAllParts(batch, Duration.ofSeconds(30));
			return complete ? elapsedMillis(started) : -1L;
		});
		List<Long> partsDoneAt = all(3, (i) -> {
			Thread.sleep(400L * i); // the parts take 0.4, 0.8 and 1.2 s
			batches.partDone(batch);
			return elapsedMillis(started);
		});
		long stepAt = step.get(60, TimeUnit.SECONDS);
		long lastPart = partsDoneAt.stream().mapToLong(Long::longValue).max().orElse(0);
		if (stepAt < 0) {
			return "the waiting step timed out: the latch never reached 0 (" + batches.partsLeft(batch) + " left)";
		}
		return "latch set to 3; parts done at "
				+ partsDoneAt.stream().sorted().map((millis) -> millis + " ms").collect(Collectors.joining(", "))
				+ "; the waiting step went on at " + stepAt + " ms, " + ((stepAt >= lastPart)
						? (stepAt - lastPart) + " ms after the last part" : "BEFORE the last part was done")
				+ "; " + batches.partsLeft(batch) + " left";
	}

	private String handOverLeadership() throws Exception {
		LeaderCandidate mine = this.leaderCandidate.getIfAvailable();
		if (mine == null) {
			return "leader election is off (distlock.leader.enabled=false): @LeaderOnly methods fail";
		}
		LeaderTasks tasks = this.services.leaderTasks();
		Duration lease = mine.getLease();
		if (!await(mine::isLeader, Duration.ofSeconds(2))) {
			return "another instance leads group " + mine.getGroup() + ": @LeaderOnly here returned "
					+ tasks.publishDigest() + " (skipped); press it on the leader's page";
		}
		long myTerm = term(mine);
		LockProvider<?> provider = this.locks.defaultProvider();
		String rivalName = this.instance + " (rival candidate)";
		try (LockTemplate rivalLocks = new LockTemplate(List.of(provider), provider.name(), this.locks.settings(),
				List.of(this.timeline.as(rivalName)))) {
			LeaderCandidate rival = new LeaderCandidate(rivalLocks, mine.getGroup(), lease, null, rivalName,
					(event) -> {
					});
			rival.start();
			try {
				mine.yieldLeadership();
				if (!await(rival::isLeader, lease.plusSeconds(10))) {
					return "this instance yielded but the rival did not take over within " + lease.plusSeconds(10);
				}
				long rivalTerm = term(rival);
				LeaderTasks.Digest during = tasks.publishDigest();
				rival.stop();
				if (!await(mine::isLeader, lease.multipliedBy(2).plusSeconds(10))) {
					return "the rival led with term " + rivalTerm + ", but this instance did not lead again";
				}
				LeaderTasks.Digest after = tasks.publishDigest();
				return String.format(Locale.ROOT,
						"this instance led with term %d and yielded; the rival led with term %d (@LeaderOnly here: %s); "
								+ "the rival stopped and this instance leads again with term %d (@LeaderOnly: %s)",
						myTerm, rivalTerm, (during != null) ? "ran" : "skipped", term(mine),
						(after != null) ? "ran, term " + after.term() : "skipped");
			}
			finally {
				rival.stop();
			}
		}
	}

	private static long term(LeaderCandidate candidate) {
		return candidate.currentTerm().map((term) -> term.fencingToken()).orElse(0L);
	}

	private static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				return false;
			}
			Thread.sleep(20);
		}
		return true;
	}

	private static long elapsedMillis(long startedNanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
	}

	private long awaitHeld(String key) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			for (LeaseSnapshot lease : this.locks.activeLeases()) {
				if (lease.key().equals(key)) {
					return lease.fencingToken();
				}
			}
			Thread.sleep(10);
		}
		throw new IllegalStateException("The paused deposit did not get the lock " + key + " within 30 s");
	}

	private <T> List<T> all(int count, IndexedCall<T> call) throws Exception {
		List<Callable<T>> calls = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			int n = i + 1;
			calls.add(() -> call.call(n));
		}
		return all(calls);
	}

	private <T> List<T> all(List<Callable<T>> calls) throws Exception {
		List<Future<T>> futures = new ArrayList<>();
		for (Callable<T> call : calls) {
			futures.add(this.executor.submit(call));
		}
		List<T> results = new ArrayList<>();
		for (Future<T> future : futures) {
			results.add(future.get(60, TimeUnit.SECONDS));
		}
		return results;
	}

	@FunctionalInterface
	private interface IndexedCall<T> {

		T call(int index) throws Exception;

	}

	/**
	 * The sample's services the demos call, through their proxies.
	 *
	 * @param stock reservations
	 * @param accounts deposits
	 * @param transfers transfers between two accounts
	 * @param carPark the car park
	 * @param catalogue the price catalogue
	 * @param reportJob the report job
	 * @param batches batches and their latch
	 * @param leaderTasks the leader's work
	 */
	@Component
	record Services(StockService stock, AccountService accounts, TransferService transfers, CarPark carPark,
			PriceCatalogue catalogue, ReportJob reportJob, BatchService batches, LeaderTasks leaderTasks) {
	}

}
