-- A fenced SET: writes KEYS[1] only if the token recorded in KEYS[2] is not greater than ARGV[2], and records
-- ARGV[2] there. Tokens are non-negative integers compared as decimal strings (length first), so tokens beyond
-- 2^53 compare exactly, which Lua's double numbers would not.
-- KEYS[1] the value's key, KEYS[2] its token key (same hash slot)
-- ARGV[1] the value, ARGV[2] the token, ARGV[3] time to live in ms ('0' = none)
-- Returns nil when written, else the greater recorded token.
local recorded = redis.call('GET', KEYS[2])
if recorded and (#recorded > #ARGV[2] or (#recorded == #ARGV[2] and recorded > ARGV[2])) then
	return recorded
end
if ARGV[3] == '0' then
	redis.call('SET', KEYS[1], ARGV[1])
	redis.call('SET', KEYS[2], ARGV[2])
else
	redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
	redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return false
