-- Restarts the lease of a permit of a Redisson permit-expirable semaphore at ARGV[3] ms from now, only while the
-- permit is held (present in the semaphore's timeout set and not expired), as Redisson's updateLeaseTime does, and
-- keeps the semaphore alive at least ARGV[4] ms (never shorter than any permit's lease). With a fencing counter in
-- KEYS[3] it also takes the grant's token (see extend-hash.lua).
-- KEYS[1] the semaphore's timeout set ('<name>:timeout': permit id -> expiry in epoch ms, Redisson's layout)
-- KEYS[2] the semaphore (its free permits)
-- KEYS[3] optional: the fencing counter (same hash slot)
-- ARGV[1] the permit id as Redisson stores it (the bytes its hex id stands for)
-- ARGV[2] now in epoch ms (Redisson scores permits by the client's clock, so this must use the same clock)
-- ARGV[3] the lease in ms
-- ARGV[4] how long the semaphore and the counter live unless extended, in ms (at least the lease)
-- Returns 0 if the permit is no longer held; else the token with KEYS[3], 1 without.
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if expiry == false or tonumber(expiry) <= tonumber(ARGV[2]) then
	return 0
end
redis.call('zadd', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
extend_to(KEYS[1], tonumber(ARGV[4]))
extend_to(KEYS[2], tonumber(ARGV[4]))
if KEYS[3] then
	return next_token(KEYS[3], redis.call('TIME'), ARGV[4])
end
return 1
