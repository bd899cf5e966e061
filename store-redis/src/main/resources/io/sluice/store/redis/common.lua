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

-- Integer division of a > -b by b > 0, rounding up.
local function ceil_div(a, b)
  return idiv(a + b - 1, b)
end

-- The largest bucket in units, as io.sluice.algorithms.BucketRate.MAX_UNITS (2^51).
local MAX_UNITS = 2251799813685248

-- A bucket's exact rate as io.sluice.algorithms.BucketRate: tokens_per_micro / scale tokens
-- per microsecond. P / D reduced when the bucket fits, else one token every ceil(D / P) us
-- (the limit was accepted in Java only if that is within 0.1% of the rate).
local function bucket_rate(permits, burst, period)
  local a, b = permits, period
  while b ~= 0 do
    a, b = b, math.fmod(a, b)
  end
  local scale = period / a
  if scale <= idiv(MAX_UNITS, burst) then
    return permits / a, scale
  end
  return 1, ceil_div(period, permits)
end

-- The algorithms by id; each file adds one function
-- (state, now, permits, burst, period, cost, log_key)
--   -> outcome, remaining, resetAfter, retryAfter, newState, commit
-- where state is the reference long[] as a Lua array (state[1] is the tag) or nil, and
-- newState is set when the outcome is ALLOWED. log_key (the sliding log's list) and commit
-- (a function of the clock argument that writes that list, run only when every limit admits)
-- are the sliding log's only.
local algorithms = {}

-- Under the test-only clock override, virtual time is unrelated to the real time Redis
-- expires keys by: keep keys this much longer (ms) so they expire only by virtual time.
local TEST_CLOCK_TTL_SLACK_MILLIS = 600000

-- The time to live in milliseconds (PX, PEXPIRE) of a key whose state is fully reset after
-- reset_after microseconds: rounded up, plus the slack under the test-only clock.
local function ttl_millis(clock, reset_after)
  local ttl = ceil_div(reset_after, 1000)
  if clock ~= 'redis' then
    ttl = ttl + TEST_CLOCK_TTL_SLACK_MILLIS
  end
  return ttl
end

-- The clock argument: 'redis' (production: Redis TIME) or 'test:<micros>', the test-only
-- override the store sends only when built with clockForTesting.
local function now_micros(clock)
  if clock == 'redis' then
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000000 + tonumber(time[2])
  end
  local micros = string.match(clock, '^test:(%-?%d+)$')
  if micros == nil then
    error('sluice: bad clock argument')
  end
  return tonumber(micros)
end

-- The value of a client's key, format 2 (docs/stores/redis.md): the byte 2, then per limit
-- its name (length, bytes), its expiry (the instant after which its state equals the fresh
-- state) and its state (length, then each number zig-zag), all numbers as LEB128 varints.
local FORMAT = 2

local function read_varint(value, pos)
  local result, multiplier = 0, 1
  while true do
    local byte = string.byte(value, pos)
    if byte == nil then
      error('sluice: truncated state value')
    end
    pos = pos + 1
    if byte < 128 then
      return result + byte * multiplier, pos
    end
    result = result + (byte - 128) * multiplier
    multiplier = multiplier * 128
  end
end

local function write_varint(out, x)
  while x >= 128 do
    local low = math.fmod(x, 128)
    out[#out + 1] = string.char(low + 128)
    x = (x - low) / 128
  end
  out[#out + 1] = string.char(x)
end

-- The unexpired entries of a value, in order: { name = ..., expires_at = ..., state = {...} }.
-- A value of another format is rejected, never misread.
local function read_entries(value, now)
  local entries = {}
  if not value then
    return entries
  end
  if string.byte(value, 1) ~= FORMAT then
    error('sluice: state value of unknown format ' .. tostring(string.byte(value, 1)))
  end
  local pos, length = 2, #value
  while pos <= length do
    local name_length, expires_at, state_length
    name_length, pos = read_varint(value, pos)
    local name = string.sub(value, pos, pos + name_length - 1)
    pos = pos + name_length
    expires_at, pos = read_varint(value, pos)
    state_length, pos = read_varint(value, pos)
    local state = {}
    for i = 1, state_length do
      local zigzag
      zigzag, pos = read_varint(value, pos)
      if math.fmod(zigzag, 2) == 0 then
        state[i] = zigzag / 2
      else
        state[i] = -(zigzag + 1) / 2
      end
    end
    if expires_at > now then
      entries[#entries + 1] = { name = name, expires_at = expires_at, state = state }
    end
  end
  return entries
end

local function write_entries(entries)
  local out = { string.char(FORMAT) }
  for _, entry in ipairs(entries) do
    write_varint(out, #entry.name)
    out[#out + 1] = entry.name
    write_varint(out, entry.expires_at)
    write_varint(out, #entry.state)
    for i = 1, #entry.state do
      local x = entry.state[i]
      if x >= 0 then
        write_varint(out, 2 * x)
      else
        write_varint(out, -2 * x - 1)
      end
    end
  end
  return table.concat(out)
end

-- A limit's state in key schema 1 (one key per limit, "expiresAt,tag,s1,s2,..." in decimal),
-- read during a rolling upgrade when the client's key holds no state of that limit yet.
local function read_version1(value, now)
  if not value then
    return nil
  end
  local state, expires_at = {}, nil
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
