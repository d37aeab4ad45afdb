package dev.distlock.sample.page;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.distlock.core.Lease;
import dev.distlock.core.LeaseSnapshot;
import dev.distlock.core.LockRequest;
import dev.distlock.core.LockTemplate;
import dev.distlock.core.spi.LockProvider;
import dev.distlock.sample.InstanceName;
import dev.distlock.sample.accounts.AccountService;
import dev.distlock.sample.accounts.StaleLockTokenException;
import dev.distlock.sample.jobs.ReportJob;
import dev.distlock.sample.parking.CarPark;
import dev.distlock.sample.prices.PriceCatalogue;
import dev.distlock.sample.stock.StockService;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * Runs the page's demos in the background, each a burst of concurrent calls to the
 * sample's services, and keeps the last twenty runs with a one-line summary. The calls
 * themselves land on the {@link LockTimeline}.
 */
@Service
public class DemoScenarios implements DisposableBean {

	static final String SKU = "ESPRESSO-MACHINE";

	static final String ACCOUNT = "page-demo";

	private final SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("demo-");

	private final List<DemoRun> runs = new ArrayList<>();

	private final StockService stock;

	private final AccountService accounts;

	private final CarPark carPark;

	private final PriceCatalogue catalogue;

	private final ReportJob reportJob;

	private final LockTemplate locks;

	private final LockTimeline timeline;

	private final JdbcClient jdbc;

	private final InstanceName instance;

	private final Duration accountLease;

	private long lastId;

	DemoScenarios(StockService stock, AccountService accounts, CarPark carPark, PriceCatalogue catalogue,
			ReportJob reportJob, LockTemplate locks, LockTimeline timeline, JdbcClient jdbc, InstanceName instance,
			@Value("${sample.account.lease:5s}") Duration accountLease) {
		this.stock = stock;
		this.accounts = accounts;
		this.carPark = carPark;
		this.catalogue = catalogue;
		this.reportJob = reportJob;
		this.locks = locks;
		this.timeline = timeline;
		this.jdbc = jdbc;
		this.instance = instance;
		this.accountLease = accountLease;
		this.executor.setConcurrencyLimit(64);
	}

	/**
	 * Starts a demo in the background.
	 * @param demo the demo
	 * @return its run, not finished yet
	 */
	public DemoRun start(Demo demo) {
		DemoRun run;
		synchronized (this.runs) {
			run = new DemoRun(++this.lastId, demo, Instant.now(), null, null, false);
			this.runs.add(0, run);
			while (this.runs.size() > 20) {
				this.runs.remove(this.runs.size() - 1);
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
			return run.finish(play(run.demo()), false);
		}
		catch (Exception ex) {
			return run.finish(ex.toString(), true);
		}
	}

	private String play(Demo demo) throws Exception {
		return switch (demo) {
			case STOCK -> reserveStock();
			case FENCED -> fencedWrite();
			case CAR_PARK -> parkCars();
			case CATALOGUE -> readAndReprice();
			case REPORT_JOB -> runReportJobTwice();
		};
	}

	private String reserveStock() throws Exception {
		if (this.stock.quantity(SKU).orElse(0) < 6) {
			this.stock.restock(SKU, 100);
		}
		List<StockService.Reservation> reservations = all(6, (i) -> this.stock.reserve(SKU, 1));
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
		Duration pause = this.accountLease.plusMillis(1500);
		Future<AccountService.Deposit> paused = this.executor.submit(() -> this.accounts.deposit(ACCOUNT, 100, pause));
		long pausedToken = awaitHeld(key);
		LockProvider<?> provider = this.locks.defaultProvider();
		String successor = this.instance + " (second template)";
		long successorToken;
		// a second LockTemplate plays a second instance: this instance's own callers
		// would queue behind the holder
		try (LockTemplate other = new LockTemplate(List.of(provider), provider.name(), this.locks.settings(),
				List.of(this.timeline.as(successor)))) {
			try (Lease lease = other.acquire(
					LockRequest.builder(key).name("account").waitTime(this.accountLease.multipliedBy(3)).build())) {
				successorToken = lease.fencingToken();
				this.jdbc
					.sql("UPDATE account SET balance = balance + 5, last_token = ? WHERE id = ? AND last_token < ?")
					.params(successorToken, ACCOUNT, successorToken)
					.update();
			}
		}
		try {
			AccountService.Deposit deposit = paused.get(pause.toMillis() + 10_000, TimeUnit.MILLISECONDS);
			return "the paused holder's write went through with token " + deposit.lockToken()
					+ " (it was not refused: did its lease outlive the pause?)";
		}
		catch (ExecutionException ex) {
			String outcome = (ex.getCause() instanceof StaleLockTokenException) ? "its write was refused: "
					: "it ended with: ";
			return "token " + pausedToken + " stalled " + pause.toMillis() + " ms past its "
					+ this.accountLease.toMillis() + " ms lease; " + successor + " took over with token "
					+ successorToken + " and wrote; " + outcome + ex.getCause().getMessage();
		}
	}

	private String parkCars() throws Exception {
		List<CarPark.Visit> visits = all(5, (i) -> this.carPark.park("PAGE-" + i, Duration.ofMillis(2500)));
		long parked = visits.stream().filter(CarPark.Visit::parked).count();
		return parked + " of 5 cars parked (" + CarPark.CAPACITY + " spaces), " + (5 - parked) + " turned away";
	}

	private String readAndReprice() throws Exception {
		List<Callable<Long>> calls = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			int n = i;
			calls.add(() -> {
				Thread.sleep(25L * n); // readers, then the writer, then readers again
				return (n == 3) ? this.catalogue.reprice(1).lockToken() : this.catalogue.prices().lockToken();
			});
		}
		List<Long> tokens = all(calls);
		return "3 readers shared the READ lock, the repricing took WRITE (token " + tokens.get(3)
				+ ") alone, 3 more readers followed";
	}

	private String runReportJobTwice() throws Exception {
		List<ReportJob.@Nullable JobRun> runs = all(2, (i) -> this.reportJob.run());
		long ran = runs.stream().filter((run) -> run != null).count();
		return "job triggered twice at once: " + ran + " built the report, " + (2 - ran) + " skipped";
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

}
