-- WRITE acquire: exclusive against readers and other writers. The writer is a SET NX PX holder as in
-- acquire-mutex.lua (https://redis.io/docs/latest/develop/clients/patterns/distributed-locks/); readers are the
-- sorted set of acquire-read.lua, purged of expired leases here. A writer that must wait registers in a sorted set
-- of waiting writers with a timeout that every attempt moves on, which holds back new readers until it got its
-- turn (writer preference); a waiter that died stops holding them back after the waiter timeout.
-- KEYS[1] writer, KEYS[2] readers, KEYS[3] waiting writers, KEYS[4] fence counter
-- ARGV[1] owner, ARGV[2] lease ms, ARGV[3] fence retention ms, ARGV[4] waiter timeout ms (0: no writer preference)
-- Returns the fencing token (> 0) when granted; when busy, busy_for(the remaining lease of the writer or of the
-- reader whose lease ends first).
local owner = ARGV[1]
local time = redis.call('TIME')
local now = now_ms(time)
local wait
local writer = redis.call('GET', KEYS[1])
if writer and writer ~= owner then
	wait = busy_for(redis.call('PTTL', KEYS[1]))
else
	redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
	local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
	if first[1] then
		wait = busy_for(tonumber(first[2]) - now)
	end
end
if wait then
	local timeout = tonumber(ARGV[4])
	if timeout > 0 then
		redis.call('ZADD', KEYS[3], now + timeout, owner)
		redis.call('PEXPIRE', KEYS[3], timeout)
	end
	return wait
end
redis.call('SET', KEYS[1], owner, 'PX', ARGV[2])
redis.call('ZREM', KEYS[3], owner)
return next_token(KEYS[4], time, ARGV[3])
