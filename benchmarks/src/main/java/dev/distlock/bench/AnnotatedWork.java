package dev.distlock.bench;

import dev.distlock.annotation.DistributedLock;

/**
 * The {@link LockedCall} guarded by {@code @DistributedLock}: the benchmarks call it
 * through its Spring proxy, so the aspect's whole per-call path (key expression, request,
 * acquire, run, release) is measured. Lease and wait as in {@link BenchConfig}.
 */
public class AnnotatedWork implements LockedCall {

	private long calls;

	@Override
	@DistributedLock(key = "#key", lease = "30s", waitTime = "30s")
	public void call(String key) {
		this.calls++;
	}

	public long calls() {
		return this.calls;
	}

}
