-- SEMAPHORE acquire: at most `permits` holders at once, each a member of a sorted set scored by the end of its own
-- lease, so a dead holder's permit expires without touching the others: the counting semaphore of "Redis in
-- Action" 6.3 (https://redis.io/ebook/part-2-core-concepts/chapter-6-application-components-in-redis/6-3-counting-semaphores/),
-- timed by the server clock instead of the clients' and purged inside the script.
-- KEYS[1] holders, KEYS[2] fence counter
-- ARGV[1] owner, ARGV[2] lease ms, ARGV[3] fence retention ms, ARGV[4] permits
-- Returns the fencing token (> 0) when granted; when busy, busy_for(the time until the first permit frees).
local time = redis.call('TIME')
local now = now_ms(time)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
	local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
	return busy_for(tonumber(first[2]) - now)
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
extend_to(KEYS[1], tonumber(ARGV[2]))
return next_token(KEYS[2], time, ARGV[3])
