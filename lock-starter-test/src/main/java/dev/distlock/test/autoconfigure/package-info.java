/**
 * Test auto-configuration for applications that use distlock:
 * {@link AutoConfigureLocalLocks} and {@link AutoConfigureLockRecorder}.
 */
@NullMarked
package dev.distlock.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
