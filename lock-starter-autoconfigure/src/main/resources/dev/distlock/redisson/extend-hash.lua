-- Restarts the lease of a Redisson lock kept as a hash (lock, fair lock, write lock) at ARGV[2] ms from now, only if
-- the owner's field is still there: the compare-and-extend of Redisson's own watchdog (renewal/LockTask), for one
-- lock. With a fencing counter in KEYS[2] it also takes the grant's token: the acquisition's second step, so the
-- lease the client counts from sending this request never outlasts the one Redis keeps.
-- KEYS[1] the lock's hash
-- KEYS[2] optional: the fencing counter (same hash slot)
-- ARGV[1] the holder's field
-- ARGV[2] the lease in ms
-- ARGV[3] with KEYS[2]: the counter's retention in ms
-- Returns 0 if the owner no longer holds the lock; else the token with KEYS[2], 1 without.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
	return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
if KEYS[2] then
	return next_token(KEYS[2], redis.call('TIME'), ARGV[3])
end
return 1
