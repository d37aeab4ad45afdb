-- Extends a read hold of a Redisson read-write lock to ARGV[1] ms from now, only if the reader still holds it; the
-- same steps as Redisson's own read-lock watchdog (renewal/ReadLockTask) for one reader: every per-hold timeout key
-- of the reader, then the hash, which must live as long as its longest reader (never shortened here, other readers
-- may hold longer leases). Returns 1 if extended, 0 if the reader no longer holds it.
-- KEYS[1] the lock's hash
-- KEYS[2] the reader's timeout key prefix ('{name}:<client id>:<owner id>:rwlock_timeout')
-- ARGV[1] the new lease in ms
-- ARGV[2] the reader's field
local counter = redis.call('hget', KEYS[1], ARGV[2])
if counter == false then
	return 0
end
for i = tonumber(counter), 1, -1 do
	redis.call('pexpire', KEYS[2] .. ':' .. i, ARGV[1])
end
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[1]) then
	redis.call('pexpire', KEYS[1], ARGV[1])
end
return 1
