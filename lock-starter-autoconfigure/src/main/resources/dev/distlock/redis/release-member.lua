-- Release of a lock held as a sorted-set member (READ, SEMAPHORE): remove only this owner's member
-- (https://redis.io/docs/latest/commands/zrem/) and wake the waiters with PUBLISH
-- (https://redis.io/docs/latest/commands/publish/) on the lock's channel in the same script.
-- KEYS[1] holders; ARGV[1] owner, ARGV[2] release channel
-- Returns 1 if this owner held the lock, else 0.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
	redis.call('PUBLISH', ARGV[2], 'released')
	return 1
end
return 0
