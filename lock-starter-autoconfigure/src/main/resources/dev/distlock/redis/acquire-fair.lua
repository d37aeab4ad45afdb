-- FAIR acquire: first come, first served. Waiters line up in a list used as a queue
-- (https://redis.io/docs/latest/develop/data-types/lists/) and keep their place by trying again; each place has a
-- timeout in a sorted set (https://redis.io/docs/latest/develop/data-types/sorted-sets/) that every attempt moves
-- on, so a waiter that died leaves the head of the queue after the waiter timeout instead of blocking it for good
-- (the shape of Redisson's RedissonFairLock). The holder is the SET NX PX lock of acquire-mutex.lua.
-- KEYS[1] holder, KEYS[2] queue, KEYS[3] queue timeouts, KEYS[4] fence counter
-- ARGV[1] owner, ARGV[2] lease ms, ARGV[3] fence retention ms, ARGV[4] waiter timeout ms
-- Returns the fencing token (> 0) when granted; when busy, busy_for(the holder's remaining lease), or 0 when
-- another waiter is first in line.
local owner = ARGV[1]
local time = redis.call('TIME')
local now = now_ms(time)
local head
while true do
	head = redis.call('LINDEX', KEYS[2], 0)
	if not head then
		break
	end
	local timeout = redis.call('ZSCORE', KEYS[3], head)
	if timeout and tonumber(timeout) > now then
		break
	end
	-- the first waiter stopped trying: it must not block the queue
	redis.call('LPOP', KEYS[2])
	redis.call('ZREM', KEYS[3], head)
end
local holder = redis.call('GET', KEYS[1])
if holder == owner or (not holder and (not head or head == owner)) then
	redis.call('SET', KEYS[1], owner, 'PX', ARGV[2])
	if head == owner then
		redis.call('LPOP', KEYS[2])
		redis.call('ZREM', KEYS[3], owner)
	end
	return next_token(KEYS[4], time, ARGV[3])
end
if not redis.call('ZSCORE', KEYS[3], owner) then
	redis.call('RPUSH', KEYS[2], owner)
end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), owner)
-- every place lives at most the waiter timeout after its last attempt, so the queue outlives none of them
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
if holder then
	return busy_for(redis.call('PTTL', KEYS[1]))
end
return 0
