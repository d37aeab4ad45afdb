/**
 * Fencing you can use: writes that the protected resource itself refuses when they carry
 * a fencing token lower than the last one it recorded, so a holder that paused past its
 * lease cannot overwrite its successor's work. {@link dev.distlock.fencing.JdbcFencing}
 * guards SQL updates through {@code JdbcClient},
 * {@link dev.distlock.fencing.RedisFencing} guards Redis {@code SET} and {@code HSET}; a
 * refused write raises {@link dev.distlock.fencing.StaleFencingTokenException}. Both read
 * the token of the lease current in {@link dev.distlock.core.LockContext} unless given
 * one.
 */
@NullMarked
package dev.distlock.fencing;

import org.jspecify.annotations.NullMarked;
