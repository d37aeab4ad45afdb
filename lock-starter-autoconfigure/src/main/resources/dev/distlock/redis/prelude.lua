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

-- The fencing token of a grant: a per-lock counter that never runs behind the server clock in microseconds, kept
-- retention_ms after the last grant. One command in the common case: SET ... GET
-- (https://redis.io/docs/latest/commands/set/, Redis 6.2+) stores the clock floor and returns the previous token;
-- only when that was not below the floor (two grants within one microsecond, or the clock stepped back) is the
-- counter set once more, to previous + 1. The clock floor keeps tokens increasing when the counter is gone: a restart
-- without persistence, a failover that lost the last writes, or the counter's expiry. That holds while the server
-- clock does not step back further than the counter was away, and while a key is locked less than a million times a
-- second. Servers before 6.2 refuse SET ... GET; they get GET and SET (two commands).
-- Why fencing tokens: https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html
local function next_token(fence_key, time, retention_ms)
	-- the floor in decimal from TIME's two parts (seconds, then microseconds unpadded): cheaper than formatting a number
	local floor = time[1] .. string.sub('00000' .. time[2], -6)
	local last = redis.pcall('SET', fence_key, floor, 'PX', retention_ms, 'GET')
	if type(last) == 'table' and last.err then
		last = redis.call('GET', fence_key)
		local token = math.max(tonumber(last or '0') + 1, tonumber(floor))
		redis.call('SET', fence_key, string.format('%.0f', token), 'PX', retention_ms)
		return token
	end
	-- tokens are decimal without leading zeros: the longer is the larger, and of one length the later in order
	if last and (#last > #floor or (#last == #floor and last >= floor)) then
		local token = tonumber(last) + 1
		redis.call('SET', fence_key, string.format('%.0f', token), 'PX', retention_ms)
		return token
	end
	return tonumber(floor)
end

-- Wakes this JVM's and other processes' waiters of a lock, but only when one is registered (wait-register.lua):
-- an uncontended release costs one EXISTS instead of a PUBLISH. The publish command is PUBLISH, or SPUBLISH
-- (sharded pub/sub, Redis 7+) on a cluster, chosen when the scripts are loaded (publish_command below).
local function wake_waiters(waiting_key, channel)
	if redis.call('EXISTS', waiting_key) == 1 then
		redis.call(publish_command, channel, 'released')
	end
end
