-- Lease renewal of up to 26 locks held as strings (MUTEX, FAIR, WRITE) in one script, as renew-holder.lua does for
-- one: PEXPIRE each only if its owner still holds it. Standalone and Sentinel only (the keys of a batch hash to
-- different slots).
-- KEYS[i] holder of lock i; ARGV[1] lease ms, ARGV[i + 1] owner of lock i
-- Returns two bits per lock, lock i at bits 2(i - 1) and 2(i - 1) + 1: 1 renewed, 0 no longer held by its owner,
-- 2 failed on the server (a wrong type, say); one lock's failure never stops the others (redis.pcall).
-- 26 locks = 52 bits, exact in a Lua number.
local result = 0
local weight = 1
for i = 1, #KEYS do
	local code = 0
	local value = redis.pcall('GET', KEYS[i])
	if type(value) == 'table' and value.err then
		code = 2
	elseif value == ARGV[i + 1] then
		local expired = redis.pcall('PEXPIRE', KEYS[i], ARGV[1])
		if type(expired) == 'table' and expired.err then
			code = 2
		else
			code = 1
		end
	end
	result = result + code * weight
	weight = weight * 4
end
return result
