-- Takes the next fencing token of a Redisson lock kept as a hash (fair lock, read lock, write lock), only while the
-- owner still holds it, so tokens grow in the order holds began: a hold that starts after another ended increments
-- after that one did. Returns nil if the owner no longer holds the lock.
-- KEYS[1] the lock's hash (Redisson's layout: one field per holder, '<client id>:<owner id>[:write]')
-- KEYS[2] the fencing counter (same hash slot as the lock)
-- ARGV[1] the holder's field
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
	return redis.call('incr', KEYS[2])
end
return nil
