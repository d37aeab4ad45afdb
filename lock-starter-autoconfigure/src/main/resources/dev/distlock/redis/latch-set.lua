-- Sets the count of a countdown latch unless it exists, with its expiry (SET NX PX, https://redis.io/docs/latest/commands/set/).
-- KEYS[1]: the latch's key. ARGV[1]: the count (>= 1). ARGV[2]: the expiry in milliseconds.
-- Returns 1 if set, 0 if the latch exists (its count and expiry unchanged).
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	return 1
end
return 0
