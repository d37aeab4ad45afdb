-- MUTEX acquire: one holder, stored as its owner token with a lease. The single-instance lock of
-- https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/ ("Correct Implementation with a Single
-- Instance"): SET key owner NX PX lease (https://redis.io/docs/latest/commands/set/), plus a fencing token.
-- KEYS[1] holder, KEYS[2] fence counter
-- ARGV[1] owner, ARGV[2] lease ms, ARGV[3] fence retention ms
-- Returns the fencing token (> 0) when granted; when busy, busy_for(the holder's remaining lease).
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
	if redis.call('GET', KEYS[1]) ~= ARGV[1] then
		return busy_for(redis.call('PTTL', KEYS[1]))
	end
	-- the same attempt asking again: grant it again rather than block itself
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return next_token(KEYS[2], redis.call('TIME'), ARGV[3])
