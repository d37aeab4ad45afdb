/**
 * The distlock API ({@link dev.distlock.core.LockTemplate}, {@link dev.distlock.core.Lease},
 * {@link dev.distlock.core.LockRequest}) and the backend SPI ({@link dev.distlock.core.LockProvider}). Nothing in this
 * package names a backend.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
