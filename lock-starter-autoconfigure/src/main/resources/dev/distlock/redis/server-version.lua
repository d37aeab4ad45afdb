-- The server's version as one number (0x00MMmmpp), to choose between PUBLISH and SPUBLISH: redis.REDIS_VERSION_NUM
-- exists from Redis 7.0 on (https://redis.io/docs/latest/develop/interact/programmability/lua-api/), so older
-- servers answer 0.
return redis.REDIS_VERSION_NUM or 0
