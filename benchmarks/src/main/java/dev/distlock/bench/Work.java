package dev.distlock.bench;

/**
 * The unguarded {@link LockedCall}: counts calls, so the call has an effect the JIT
 * cannot drop.
 */
public class Work implements LockedCall {

	private long calls;

	@Override
	public void call(String key) {
		this.calls++;
	}

	public long calls() {
		return this.calls;
	}

}
