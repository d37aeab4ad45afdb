-- Takes an abandoned waiter out of a Redisson fair lock's queue, as Redisson does itself when a tryLock times out
-- (RedissonFairLock.acquireFailedAsync): later waiters' timeouts move up by the wait time the leaver had reserved.
-- Without this, a waiter that gave up keeps its queue place until its timeout (Config.fairLockWaitTimeout).
-- KEYS[1] the queue ('redisson_lock_queue:{name}')
-- KEYS[2] the timeouts ('redisson_lock_timeout:{name}')
-- ARGV[1] the waiter's field
-- ARGV[2] the fair lock wait timeout in ms
local queue = redis.call('lrange', KEYS[1], 0, -1)
local i = 1
while i <= #queue and queue[i] ~= ARGV[1] do
	i = i + 1
end
if i > #queue then
	return 0
end
i = i + 1
while i <= #queue do
	redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
	i = i + 1
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
return 1
