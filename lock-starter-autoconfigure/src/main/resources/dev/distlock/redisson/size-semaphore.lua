-- Creates a Redisson permit-expirable semaphore with its capacity, if it does not exist: Redisson's trySetPermits,
-- but with an expiry, so a semaphore nobody uses any more goes away (each grant and renewal extends it, see
-- extend-permit.lua). No one can be waiting for permits of a semaphore that does not exist, so nothing is published.
-- KEYS[1] the semaphore (its free permits)
-- ARGV[1] the capacity
-- ARGV[2] how long the semaphore lives unless extended, in ms
-- Returns 1 if created, 0 if it existed.
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return 1
end
return 0
