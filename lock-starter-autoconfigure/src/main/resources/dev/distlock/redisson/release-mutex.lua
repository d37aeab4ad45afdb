-- MUTEX release on Redisson's lock layout, owner-checked, in one round trip: what RedissonLock.unlockInnerAsync does
-- for a hold of this owner, without its unlock latch (a key per release that makes a retried unlock idempotent; an
-- owner id here is used by one acquisition only, so a release sent again just finds nothing held). The whole hold ends,
-- whatever its count: one distlock lease is one hold. Redisson's waiters (and an RLock of the same name) are woken
-- by its unlock message on the lock's channel.
-- KEYS[1] the lock's hash
-- KEYS[2] Redisson's channel of the lock (redisson_lock__channel:<name>, same hash slot)
-- ARGV[1] the holder's field ('<client id>:<owner id>')
-- ARGV[2] the unlock message (Redisson's LockPubSub.UNLOCK_MESSAGE)
-- ARGV[3] the publish command (publish, or spublish where Redisson uses sharded pub/sub)
-- Returns 1 if the owner's hold was released, 0 if it held nothing.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
	return 0
end
redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[2])
return 1
