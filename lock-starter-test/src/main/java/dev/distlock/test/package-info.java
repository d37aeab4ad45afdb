/**
 * The distlock test kit: {@link dev.distlock.test.AbstractLockProviderContractTests} and
 * {@link dev.distlock.test.AbstractCoordinationContractTests}, the contracts a backend's
 * test extends, with the {@link dev.distlock.test.LockHistory} they check; and
 * {@link dev.distlock.test.LockRecorder}, which lets an application's test assert which
 * locks a call took.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
