-- Shared by every Sluice script; the store prepends it to the algorithms and the driver.
-- Lua numbers are doubles: every integer the algorithms use stays below 2^53, where doubles
-- are exact, and division goes through math.fmod, which is exact, never through a / b
-- rounded (that can be off by one near 2^53).

-- The outcome of one limit, as returned to the store.
local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2

-- Integer division of a >= 0 by b > 0, rounding down.
local function idiv(a, b)
  return (a - math.fmod(a, b)) / b
end

-- a mod b for b > 0, never negative (Java's Math.floorMod).
local function floor_mod(a, b)
  local r = math.fmod(a, b)
  if r < 0 then
    r = r + b
  end
  return r
end

-- One token every ceil(period / permits) microseconds.
local function token_interval(permits, period)
  return idiv(period + permits - 1, permits)
end

-- The algorithms by id; each file adds one function
-- (state, now, permits, burst, period, cost) -> outcome, remaining, resetAfter, retryAfter, newState
-- where state is the reference long[] as a Lua array (state[1] is the tag) or nil, and
-- newState is set when the outcome is ALLOWED.
local algorithms = {}

-- The clock argument: 'redis' (production: Redis TIME) or 'test:<micros>', the test-only
-- override the store sends only when built with clockForTesting.
local function now_micros(clock)
  if clock == 'redis' then
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000000 + tonumber(time[2])
  end
  local micros = string.match(clock, '^test:(%-?%d+)$')
  if micros == nil then
    error({ err = 'ERR sluice: bad clock argument' })
  end
  return tonumber(micros)
end

-- A stored value is "expiresAt,tag,s1,s2,..." (decimal integers): the instant after which
-- the state equals the fresh state, then the reference state. An expired value reads as nil.
local function read_state(value, now)
  if not value then
    return nil
  end
  local state = {}
  local expires_at
  for field in string.gmatch(value, '[^,]+') do
    if expires_at == nil then
      expires_at = tonumber(field)
    else
      state[#state + 1] = tonumber(field)
    end
  end
  if expires_at == nil or expires_at <= now then
    return nil
  end
  return state
end

local function integer(x)
  -- x + 0 turns a negative zero into zero.
  return string.format('%.0f', x + 0)
end

local function write_value(expires_at, state)
  local fields = { integer(expires_at) }
  for i = 1, #state do
    fields[i + 1] = integer(state[i])
  end
  return table.concat(fields, ',')
end
