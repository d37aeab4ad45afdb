/**
 * Auto-configuration: {@link dev.distlock.autoconfigure.DistlockAutoConfiguration} for
 * the core, one auto-configuration per backend, and
 * {@link dev.distlock.autoconfigure.DistlockProperties}.
 */
@NullMarked
package dev.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
