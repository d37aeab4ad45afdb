-- Restarts the lease of a permit of a Redisson permit-expirable semaphore at ARGV[3] ms from now, only while the
-- permit is held (present in the semaphore's timeout set and not expired), as Redisson's updateLeaseTime does. With a
-- fencing counter in KEYS[2] it also takes the grant's token (see extend-hash.lua).
-- KEYS[1] the semaphore's timeout set ('{name}:timeout': permit id -> expiry in epoch ms, Redisson's layout)
-- KEYS[2] optional: the fencing counter (same hash slot)
-- ARGV[1] the permit id as Redisson stores it (the bytes its hex id stands for)
-- ARGV[2] now in epoch ms (Redisson scores permits by the client's clock, so this must use the same clock)
-- ARGV[3] the lease in ms
-- Returns 0 if the permit is no longer held; else the token with KEYS[2], 1 without.
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if expiry == false or tonumber(expiry) <= tonumber(ARGV[2]) then
	return 0
end
redis.call('zadd', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
if KEYS[2] then
	return redis.call('incr', KEYS[2])
end
return 1
