-- Extends a Redisson lock kept as a hash (lock, fenced lock, fair lock, write lock) to ARGV[1] ms from now, only if
-- the owner's field is still there: the compare-and-extend Redisson's own watchdog uses (renewal/LockTask), for one
-- lock. Returns 1 if extended, 0 if the owner no longer holds it.
-- KEYS[1] the lock's hash
-- ARGV[1] the new lease in ms
-- ARGV[2] the holder's field
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
	redis.call('pexpire', KEYS[1], ARGV[1])
	return 1
end
return 0
