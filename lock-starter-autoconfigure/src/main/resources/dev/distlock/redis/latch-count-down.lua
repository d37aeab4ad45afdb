-- Counts a countdown latch down by one; at zero deletes it and publishes on its channel, which wakes the waiters.
-- A latch that does not exist (never set, at zero, expired) stays absent: DECR alone would create it without expiry.
-- DECR keeps the key's expiry (https://redis.io/docs/latest/commands/decr/).
-- KEYS[1]: the latch's key. ARGV[1]: its channel.
-- Returns the count after, 0 if the latch did not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then
	return 0
end
local count = redis.call('DECR', KEYS[1])
if count <= 0 then
	redis.call('DEL', KEYS[1])
	redis.call('PUBLISH', ARGV[1], '0')
	return 0
end
return count
