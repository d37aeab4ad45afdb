-- Restarts a read hold of a Redisson read-write lock at ARGV[2] ms from now, only if the reader still holds it; the
-- steps of Redisson's own read-lock watchdog (renewal/ReadLockTask) for one reader: every per-hold timeout key of the
-- reader, then the hash, which must live as long as its longest reader (never shortened here, other readers may hold
-- longer leases). With a fencing counter in KEYS[3] it also takes the grant's token (see extend-hash.lua).
-- KEYS[1] the lock's hash
-- KEYS[2] the reader's timeout key prefix ('{name}:<client id>:<owner id>:rwlock_timeout')
-- KEYS[3] optional: the fencing counter (same hash slot)
-- ARGV[1] the reader's field
-- ARGV[2] the lease in ms
-- ARGV[3] with KEYS[3]: the counter's retention in ms
-- Returns 0 if the reader no longer holds the lock; else the token with KEYS[3], 1 without.
local counter = redis.call('hget', KEYS[1], ARGV[1])
if counter == false then
	return 0
end
for i = tonumber(counter), 1, -1 do
	redis.call('pexpire', KEYS[2] .. ':' .. i, ARGV[2])
end
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[2]) then
	redis.call('pexpire', KEYS[1], ARGV[2])
end
if KEYS[3] then
	return next_token(KEYS[3], redis.call('TIME'), ARGV[3])
end
return 1
