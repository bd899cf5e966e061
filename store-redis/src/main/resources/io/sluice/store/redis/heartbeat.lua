-- One beat of a limiter instance (io.sluice.algorithms.instances.Heartbeat): registers the
-- instance until its time to live from now (or removes it when it leaves), drops the
-- registrations that expired, and counts the live instances, all on the store's clock.
-- KEYS[1]: the sorted set of instances (RedisKeys.INSTANCES: one hash tag, one slot of a
--          cluster): member the instance's id, score the time its registration expires (microseconds).
-- ARGV: clock ('redis' or 'test:<micros>'), the instance's id, the time to live in
--       microseconds, '1' to leave or '0' to stay.
-- The set itself expires a time to live after the last beat, so a fleet that is gone leaves nothing.
-- Returns the number of live instances.

local now = now_micros(ARGV[1])
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[4] == '1' then
  redis.call('ZREM', KEYS[1], ARGV[2])
else
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[2])
end
local live = redis.call('ZCARD', KEYS[1])
if live > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl_millis(ARGV[1], ttl))
end
return live
