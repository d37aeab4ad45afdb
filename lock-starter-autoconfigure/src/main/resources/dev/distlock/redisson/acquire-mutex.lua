-- MUTEX acquire on Redisson's lock layout (RedissonLock.tryLockInnerAsync: a hash of holder field -> hold count, the
-- lease as its expiry), so Redisson's unlock, its waiting (pub/sub on redisson_lock__channel:<name>) and an RLock of
-- the same name all work on it, with the fencing token taken in the same script: one round trip.
-- KEYS[1] the lock's hash
-- KEYS[2] the fencing counter (same hash slot)
-- ARGV[1] the holder's field ('<client id>:<owner id>')
-- ARGV[2] the lease in ms
-- ARGV[3] the counter's retention in ms
-- Returns the token (> 0) when granted; when busy, minus the holder's remaining lease in ms (at most -1).
if redis.call('exists', KEYS[1]) == 0 then
	redis.call('hset', KEYS[1], ARGV[1], 1)
elseif redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
	return -math.max(redis.call('pttl', KEYS[1]), 1)
end
-- granted, or the same owner asking again (its first reply was lost): grant it again rather than block itself
redis.call('pexpire', KEYS[1], ARGV[2])
return next_token(KEYS[2], redis.call('TIME'), ARGV[3])
