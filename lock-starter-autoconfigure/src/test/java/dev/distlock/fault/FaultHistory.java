package dev.distlock.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The merged history of a run's child JVMs, read from their {@link WorkerEvents} files,
 * as calls: when each call asked for the lock, when it held it (from the {@code ACQ} line
 * to the {@code END} line, or to the moment the test killed the process), its fencing
 * token, whether its fenced write was accepted, and how the call ended.
 */
final class FaultHistory {

	/** How a call ended; {@code NONE} if the process died or is still in it. */
	enum Outcome {

		OK, LOST, BUSY, ERR, NONE

	}

	/**
	 * One call of the guarded method.
	 *
	 * @param worker the child that made it
	 * @param requested nano time the call began
	 * @param acquired nano time the method started (lock held), or -1 if it never did
	 * @param ended nano time the method's work ended (just before the release), or -1
	 * @param token the fencing token, or -1
	 * @param accepted whether the fenced write was accepted ({@code null} if there was
	 * none)
	 * @param outcome how the call ended
	 * @param finished nano time the call returned or threw, or -1
	 * @param detail the exception line of a failed call
	 */
	record Call(String worker, long requested, long acquired, long ended, long token, Boolean accepted, Outcome outcome,
			long finished, String detail) {

		boolean held() {
			return this.acquired >= 0;
		}

		/**
		 * The end of the hold: its END line, or {@code deathNanos} if the process died
		 * holding.
		 */
		long holdEnd(long deathNanos) {
			return (this.ended >= 0) ? this.ended : deathNanos;
		}

		/**
		 * Time from the call to the lock or the failure: what "wait + timeout" bounds.
		 */
		long acquisitionNanos() {
			if (this.acquired >= 0) {
				return this.acquired - this.requested;
			}
			return (this.finished >= 0) ? this.finished - this.requested : -1;
		}

		@Override
		public String toString() {
			return this.worker + "[token " + this.token + ", " + this.outcome + ", held "
					+ ((this.acquired >= 0) ? ms(this.acquired) + ".." + ms(this.ended) : "never")
					+ ((this.outcome == Outcome.LOST) ? ", " + this.detail : "") + "]";
		}

	}

	private final Map<String, List<Call>> byWorker = new TreeMap<>();

	private final Map<String, Long> ready = new TreeMap<>();

	static FaultHistory read(List<Path> files) throws IOException {
		FaultHistory history = new FaultHistory();
		for (Path file : files) {
			if (Files.exists(file)) {
				history.parse(Files.readAllLines(file, StandardCharsets.UTF_8));
			}
		}
		return history;
	}

	private void parse(List<String> lines) {
		String worker = null;
		List<Call> calls = new ArrayList<>();
		long requested = -1;
		long acquired = -1;
		long ended = -1;
		long token = -1;
		Boolean accepted = null;
		for (String line : lines) {
			String[] f = line.split(" ", 4);
			if (f.length < 3) {
				continue;
			}
			long at;
			try {
				at = Long.parseLong(f[0]);
			}
			catch (NumberFormatException ex) {
				continue; // a line cut short by a kill
			}
			worker = f[1];
			String rest = (f.length > 3) ? f[3] : "";
			switch (f[2]) {
				case "READY" -> this.ready.put(worker, at);
				case "REQ" -> {
					requested = at;
					acquired = -1;
					ended = -1;
					token = -1;
					accepted = null;
				}
				case "ACQ" -> {
					acquired = at;
					token = parseLong(rest);
				}
				case "WRITE" -> accepted = rest.endsWith(" 1");
				case "END" -> ended = at;
				case "OK", "LOST", "BUSY", "ERR" -> {
					calls.add(new Call(worker, requested, acquired, ended, token, accepted, Outcome.valueOf(f[2]), at,
							rest));
					requested = -1;
				}
				default -> {
				}
			}
		}
		if (worker != null && requested >= 0) {
			calls.add(new Call(worker, requested, acquired, ended, token, accepted, Outcome.NONE, -1, ""));
		}
		if (worker != null) {
			this.byWorker.computeIfAbsent(worker, (w) -> new ArrayList<>()).addAll(calls);
		}
	}

	private static long parseLong(String text) {
		try {
			return Long.parseLong(text.split(" ")[0]);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	boolean isReady(String worker) {
		return this.ready.containsKey(worker);
	}

	List<Call> calls(String worker) {
		return this.byWorker.getOrDefault(worker, List.of());
	}

	List<Call> calls() {
		List<Call> all = new ArrayList<>();
		this.byWorker.values().forEach(all::addAll);
		all.sort(Comparator.comparingLong(Call::requested));
		return all;
	}

	/** The call that holds the lock now (acquired, not ended), if any. */
	Call holding(String worker) {
		List<Call> calls = calls(worker);
		if (calls.isEmpty()) {
			return null;
		}
		Call last = calls.get(calls.size() - 1);
		return (last.outcome() == Outcome.NONE && last.held() && last.ended() < 0) ? last : null;
	}

	static String ms(long nanos) {
		return (nanos < 0) ? "-" : (nanos / 1_000_000) + "ms";
	}

}
