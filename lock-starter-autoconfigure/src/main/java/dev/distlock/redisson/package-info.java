/**
 * The Redisson backends: {@link dev.distlock.redisson.RedissonLockProvider}
 * ({@code redisson}) on an application's {@code RedissonClient}, and
 * {@link dev.distlock.redisson.RedissonQuorumLockProvider} ({@code redisson-quorum}), a
 * Redlock-style lock over several independent Redis servers. Both talk to Redis through
 * {@code RedissonNode} (the calls on one client, each bounded by a deadline, and the
 * background release of late grants); the single-client provider picks a
 * {@code RedissonLockForm} per lock type (hash locks or permits), the quorum provider
 * waits for its nodes through {@code QuorumRound}. Scripts live beside this package in
 * {@code src/main/resources/dev/distlock/redisson}.
 */
@NullMarked
package dev.distlock.redisson;

import org.jspecify.annotations.NullMarked;
