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

}
