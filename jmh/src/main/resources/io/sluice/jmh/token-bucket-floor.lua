-- The least a token-bucket decision in Redis can cost: one EVALSHA that reads a hash,
-- refills by the elapsed time of the server's clock, takes the cost and sets a TTL.
-- The floor Sluice's scripts are compared with; it is not Sluice's algorithm.
-- KEYS[1] the bucket; ARGV: capacity, microseconds per token, cost.
local capacity = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens = tonumber(state[1]) or capacity
local last = tonumber(state[2]) or now
if now > last then
  local refill = math.floor((now - last) / interval)
  tokens = math.min(capacity, tokens + refill)
  last = tokens == capacity and now or last + refill * interval
end
if tokens < cost then
  return 0
end
redis.call('HSET', KEYS[1], 'tokens', tokens - cost, 'last', last)
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens + cost) * interval / 1000))
return 1
