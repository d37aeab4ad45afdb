-- Quorum lock, second phase: lifts one node's fencing counter to the token the quorum hands out (the largest its
-- majority returned), only while the owner still holds the lock on that node. Once a majority of nodes carry a
-- counter >= token while held, any later quorum overlaps one of them and its next token there is above it.
-- KEYS[1] the lock's hash on this node
-- KEYS[2] the fencing counter on this node
-- ARGV[1] the holder's field
-- ARGV[2] the token
-- ARGV[3] the counter's retention in ms
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
	return 0
end
local current = tonumber(redis.call('get', KEYS[2]) or '0')
if current < tonumber(ARGV[2]) then
	redis.call('set', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return 1
