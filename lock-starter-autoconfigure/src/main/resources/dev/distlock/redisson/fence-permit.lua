-- Takes the next fencing token of a permit of a Redisson permit-expirable semaphore, only while the permit is held
-- (present in the semaphore's timeout set and not expired). Returns nil otherwise.
-- KEYS[1] the semaphore's timeout set ('{name}:timeout': permit id -> expiry in epoch ms, Redisson's layout)
-- KEYS[2] the fencing counter (same hash slot as the semaphore)
-- ARGV[1] the permit id as Redisson stores it (the bytes its hex id stands for)
-- ARGV[2] now in epoch ms (Redisson scores permits by the client's clock, so the check must use the same clock)
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if expiry ~= false and tonumber(expiry) > tonumber(ARGV[2]) then
	return redis.call('incr', KEYS[2])
end
return nil
