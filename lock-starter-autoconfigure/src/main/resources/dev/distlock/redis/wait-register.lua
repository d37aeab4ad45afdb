-- A waiter of this lock announces itself before it sleeps, so that releases publish (wake_waiters) only while
-- someone waits: a sorted set of waiting owners scored by the end of their wait in server time. A waiter that leaves
-- removes itself (wait-leave.lua); one that crashed is purged here once its wait is over, and the set itself expires
-- with the last wait, so nothing stays behind.
-- KEYS[1] registered waiters; ARGV[1] owner, ARGV[2] wait ms
-- Returns 1.
local now = now_ms(redis.call('TIME'))
local wait = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + wait, ARGV[1])
extend_to(KEYS[1], wait)
return 1
