/**
 * The distlock test kit: {@link dev.distlock.test.AbstractLockProviderContractTests}, the contract a backend's test
 * extends, with the {@link dev.distlock.test.LockHistory} it checks; and {@link dev.distlock.test.LockRecorder}, which
 * lets an application's test assert which locks a call took.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
