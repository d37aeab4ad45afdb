package dev.distlock.bench;

/**
 * {@code plain-call}: the guarded work called directly, no lock: the baseline of the
 * aspect overhead.
 */
final class PlainCall implements Subject {

	private final LockedCall work = new Work();

	@Override
	public Hold lock(String key) {
		return () -> {
		};
	}

	@Override
	public void cycle(String key) {
		this.work.call(key);
	}

	@Override
	public void close() {
	}

}
