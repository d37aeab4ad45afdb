-- A waiter of this lock leaves (it got the lock, gave up, or failed): releases stop publishing for it.
-- KEYS[1] registered waiters; ARGV[1] owner
-- Returns 1 if it was registered, else 0.
return redis.call('ZREM', KEYS[1], ARGV[1])
