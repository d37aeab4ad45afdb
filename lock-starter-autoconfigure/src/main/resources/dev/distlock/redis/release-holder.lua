-- Release of a lock held as a string (MUTEX, FAIR, WRITE), and clean-up after an abandoned attempt: delete the
-- holder only if this owner still holds it (compare-and-delete, "Correct Implementation with a Single Instance" in
-- https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/), leave the wait queue if one is given,
-- and wake the registered waiters (wake_waiters) in the same script, so a release is one round trip.
-- KEYS[1] holder, KEYS[2] registered waiters; optional KEYS[3] waiter timeouts (FAIR queue or waiting writers);
-- optional KEYS[4] FAIR queue
-- ARGV[1] owner, ARGV[2] release channel
-- Returns 1 if this owner held the lock, else 0.
local owner = ARGV[1]
local released = 0
if redis.call('GET', KEYS[1]) == owner then
	redis.call('DEL', KEYS[1])
	released = 1
end
local left = 0
if KEYS[3] and redis.call('ZREM', KEYS[3], owner) == 1 then
	left = 1
	if KEYS[4] then
		redis.call('LREM', KEYS[4], 1, owner)
	end
end
if released + left > 0 then
	wake_waiters(KEYS[2], ARGV[2])
end
return released
