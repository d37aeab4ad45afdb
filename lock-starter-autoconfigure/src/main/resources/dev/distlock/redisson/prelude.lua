-- Shared by the Redisson backends' scripts: LuaScript puts this file in front of each one when loading it, so a
-- script still runs as one EVALSHA. Time is the server's (TIME), never a client's clock.

-- The fencing token of a grant: the lock's counter plus one, but never below the server clock in microseconds
-- (https://redis.io/docs/latest/commands/time/). The clock floor keeps tokens increasing when the counter is gone: a
-- restart without persistence, a failover that lost the last writes, or the counter's own expiry retention_ms after
-- the last grant. That holds while the server clock does not step back further than the counter was away, and while
-- a key is locked less than a million times a second. The counter therefore only has to outlive the clock's possible
-- lag, and expires. Why fencing tokens: https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
local function next_token(fence_key, retention_ms)
	local time = redis.call('TIME')
	local floor = tonumber(time[1]) * 1000000 + tonumber(time[2])
	local last = tonumber(redis.call('GET', fence_key) or '0')
	local token = math.max(last + 1, floor)
	redis.call('SET', fence_key, string.format('%.0f', token), 'PX', retention_ms)
	return token
end

-- Makes a key live at least ms more, never shorter (a key without expiry gets one; a missing key stays missing).
local function extend_to(key, ms)
	if redis.call('PTTL', key) < tonumber(ms) then
		redis.call('PEXPIRE', key, ms)
	end
end
