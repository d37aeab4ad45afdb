-- Lease renewal of a lock held as a sorted-set member (READ, SEMAPHORE): move this owner's lease end, only if its
-- lease has not ended (ZADD XX, https://redis.io/docs/latest/commands/zadd/), and keep the set alive as long.
-- KEYS[1] holders; ARGV[1] owner, ARGV[2] lease ms
-- Returns 1 if renewed, 0 if this owner no longer holds the lock.
local now = now_ms(redis.call('TIME'))
local lease_end = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not lease_end or tonumber(lease_end) <= now then
	redis.call('ZREM', KEYS[1], ARGV[1])
	return 0
end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
extend_to(KEYS[1], tonumber(ARGV[2]))
return 1
