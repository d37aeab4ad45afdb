-- A fenced HSET: writes field ARGV[1] of hash KEYS[1] only if the token recorded for that field in hash KEYS[2] is
-- not greater than ARGV[3], and records ARGV[3] there. Tokens are compared as decimal strings, as in fenced-set.lua.
-- KEYS[1] the hash, KEYS[2] its token hash (same hash slot)
-- ARGV[1] the field, ARGV[2] the value, ARGV[3] the token
-- Returns nil when written, else the greater recorded token.
local recorded = redis.call('HGET', KEYS[2], ARGV[1])
if recorded and (#recorded > #ARGV[3] or (#recorded == #ARGV[3] and recorded > ARGV[3])) then
	return recorded
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return false
