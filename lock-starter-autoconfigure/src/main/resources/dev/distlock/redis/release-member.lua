-- Release of a lock held as a sorted-set member (READ, SEMAPHORE): remove only this owner's member
-- (https://redis.io/docs/latest/commands/zrem/) and wake the registered waiters (wake_waiters) in the same script.
-- KEYS[1] holders, KEYS[2] registered waiters; ARGV[1] owner, ARGV[2] release channel
-- Returns 1 if this owner held the lock, else 0.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
	wake_waiters(KEYS[2], ARGV[2])
	return 1
end
return 0
