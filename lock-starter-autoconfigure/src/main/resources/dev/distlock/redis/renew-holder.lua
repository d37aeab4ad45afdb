-- Lease renewal of a lock held as a string (MUTEX, FAIR, WRITE): PEXPIRE only if this owner still holds it
-- (compare-and-expire; "Making the algorithm more reliable: Extending the lock" in
-- https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/).
-- KEYS[1] holder; ARGV[1] owner, ARGV[2] lease ms
-- Returns 1 if renewed, 0 if this owner no longer holds the lock.
if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return 1
end
return 0
