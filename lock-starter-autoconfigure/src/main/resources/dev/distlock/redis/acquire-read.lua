-- READ acquire: shared with other readers, excluded by a writer. Readers are members of a sorted set scored by the
-- end of their own lease in server time (https://redis.io/docs/latest/develop/data-types/sorted-sets/), so a dead
-- reader's hold ends on its own; the writer is a SET NX PX holder as in acquire-mutex.lua. While writers wait
-- (acquire-write.lua registers them), new readers stay out, so a stream of readers cannot starve the writers.
-- KEYS[1] writer, KEYS[2] readers, KEYS[3] waiting writers, KEYS[4] fence counter
-- ARGV[1] owner, ARGV[2] lease ms, ARGV[3] fence retention ms
-- Returns the fencing token (> 0) when granted; when busy, busy_for(the writer's remaining lease), or 0 while
-- writers wait.
local ttl = redis.call('PTTL', KEYS[1])
if ttl ~= -2 then
	return busy_for(ttl)
end
local time = redis.call('TIME')
local now = now_ms(time)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) > 0 and not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
	return 0
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
extend_to(KEYS[2], tonumber(ARGV[2]))
return next_token(KEYS[4], time, ARGV[3])
