/**
 * Auto-configuration of the Redis ({@code redis}) backend: its provider, properties and
 * customizers, and its latch. Property names are documented in docs/.
 */
@NullMarked
package dev.distlock.redis.autoconfigure;

import org.jspecify.annotations.NullMarked;
