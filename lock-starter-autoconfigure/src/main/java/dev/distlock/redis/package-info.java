/**
 * The Redis backend, named {@code redis}: {@link dev.distlock.redis.RedisLockProvider} on
 * Spring Data Redis, with every lock operation one Lua script (the {@code .lua} resources
 * beside this package) and release notifications over one shared subscription.
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
