package dev.distlock.local;

/**
 * Test access to the in-JVM backend's kept states.
 */
public final class LocalStatesAccess {

	private LocalStatesAccess() {
	}

	public static int retained(LocalLockProvider provider) {
		return provider.retainedStates();
	}

	/**
	 * The number of idle states a family's map keeps for their keys' next lock.
	 * @return the store's slack
	 */
	public static int slack() {
		return LocalLockStore.SWEEP_SLACK;
	}

}
