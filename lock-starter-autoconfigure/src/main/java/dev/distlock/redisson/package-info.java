/**
 * The Redisson backends: {@link dev.distlock.redisson.RedissonLockProvider} ({@code redisson}) on an application's
 * {@code RedissonClient}, and {@link dev.distlock.redisson.RedissonQuorumLockProvider} ({@code redisson-quorum}),
 * a Redlock-style lock over several independent Redis servers. Scripts live beside this package in
 * {@code src/main/resources/dev/distlock/redisson}.
 */
@NullMarked
package dev.distlock.redisson;

import org.jspecify.annotations.NullMarked;
