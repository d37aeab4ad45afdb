-- Shared by every distlock script: RedisLockScripts puts this file in front of each one when loading it, so a
-- script runs as one EVALSHA (https://redis.io/docs/latest/develop/interact/programmability/eval-intro/).
-- Time is always the server's (TIME, https://redis.io/docs/latest/commands/time/), never a client's clock.

-- Server time in milliseconds, from a TIME reply.
local function now_ms(time)
	return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The reply of a busy attempt: minus the time in ms until the blocking lease ends (at least 1), or 0 when that is
-- unknown (a key without expiry, a waiter ahead in a queue).
local function busy_for(ms)
	if ms < 0 then
		return 0
	end
	return -math.max(ms, 1)
end

-- Makes a key live at least ms more (it holds members with their own lease ends; the key must outlive them all).
local function extend_to(key, ms)
	if redis.call('PTTL', key) < ms then
		redis.call('PEXPIRE', key, ms)
	end
end

-- The fencing token of a grant: a per-lock counter, incremented inside the acquire script as INCR would
-- (https://redis.io/docs/latest/commands/incr/), that never runs behind the server clock in microseconds. The clock
-- floor keeps tokens increasing when the counter is gone: a restart without persistence, a failover that lost the
-- last writes, or the counter's expiry retention_ms after the last grant. That holds while the server clock does not
-- step back further than the counter was away, and while a key is locked less than a million times a second.
-- Why fencing tokens: https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
local function next_token(fence_key, time, retention_ms)
	local floor = tonumber(time[1]) * 1000000 + tonumber(time[2])
	local last = tonumber(redis.call('GET', fence_key) or '0')
	local token = math.max(last + 1, floor)
	redis.call('SET', fence_key, string.format('%.0f', token), 'PX', retention_ms)
	return token
end

