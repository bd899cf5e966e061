-- Shared by every Sluice script; the store prepends it to the algorithms and the driver, and
-- the Redis Functions library (library-header.lua, library-footer.lua) holds them all.
-- Lua numbers are doubles: every integer the algorithms use stays below 2^53, where doubles
-- are exact. Lua's a % b is a - floor(a / b) * b with a / b rounded, so near 2^53 the floor
-- can be one off; every step is exact below 2^53 all the same, so such a result is exactly
-- one b outside [0, b), and the helpers below move it back: exact, and cheaper than
-- math.fmod, a call through a global table.
-- That correction is written out in idiv, floor_mod, ceil_div and bucket_rate's loop rather
-- than called from one of them: the calls cost Redis about 2,300 instructions more per
-- token-bucket decision, 2.4% (callgrind, jmh/redis-callgrind.py fcall token-bucket 2000).
-- Under EVALSHA Redis runs the whole script on every call, so every function is created anew
-- each time, and one that uses a local of the script (an upvalue) costs Redis more than one
-- that uses none (docs/benchmarks.md, "Redis, third pass": each such local is allocated and
-- freed per call). So the functions on a decision's path use their arguments, constants of
-- their own, the helpers below (idiv, floor_mod, ceil_div, bucket_rate, bucket_units,
-- ttl_millis, time_at) and those of their own file, and no other local of the script. A
-- library of Redis Functions creates them once, when it is loaded.

-- The outcome of one limit, as returned to the store. Each algorithm declares the same three
-- as constants of its own (see above), which ScriptDifferentialIT checks against Java's.
local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2

-- Integer division of a >= 0 by b > 0, rounding down.
local function idiv(a, b)
  local r = a % b
  if r < 0 then
    r = r + b
  elseif r >= b then
    r = r - b
  end
  return (a - r) / b
end

-- a mod b for b > 0, never negative (Java's Math.floorMod).
local function floor_mod(a, b)
  local r = a % b
  if r < 0 then
    r = r + b
  elseif r >= b then
    r = r - b
  end
  return r
end

-- Integer division of a > -b by b > 0, rounding up.
local function ceil_div(a, b)
  local n = a + b - 1
  local r = n % b
  if r < 0 then
    r = r + b
  elseif r >= b then
    r = r - b
  end
  return (n - r) / b
end

-- A bucket's exact rate as io.sluice.algorithms.BucketRate: tokens_per_micro / scale tokens
-- per microsecond. P / D reduced when the bucket fits, else one token every ceil(D / P) us
-- (the limit was accepted in Java only if that is within 0.1% of the rate).
local function bucket_rate(permits, burst, period)
  -- The largest bucket in units, as io.sluice.algorithms.BucketRate.MAX_UNITS (2^51).
  local MAX_UNITS = 2251799813685248
  local a, b = permits, period
  while b ~= 0 do
    local r = a % b
    if r < 0 then
      r = r + b
    elseif r >= b then
      r = r - b
    end
    a, b = b, r
  end
  local scale = period / a
  if scale <= idiv(MAX_UNITS, burst) then
    return permits / a, scale
  end
  return 1, ceil_div(period, permits)
end

-- The units a stored token-bucket state holds (state[3] is then its time), or nil when it is
-- no bucket's state; as io.sluice.algorithms.TokenBucket.storedUnits, shared by the bucket and
-- its give-back. Burst lowered under a full stored bucket: capped. Written under other limit
-- parameters (another scale), or version 1 (whole tokens): the whole tokens stay, capped at
-- the burst.
local function bucket_units(state, scale, burst)
  local tag, tag_v1 = 4 * 256 + 2, 4 * 256 + 1
  if state == nil then
    return nil
  end
  if #state == 4 and state[1] == tag and state[4] == scale then
    return math.min(state[2], burst * scale)
  end
  if #state == 4 and state[1] == tag and state[4] > 0 or #state == 3 and state[1] == tag_v1 then
    local tokens = state[2]
    if state[1] == tag then
      tokens = idiv(state[2], state[4])
    end
    return math.max(0, math.min(tokens, burst)) * scale
  end
  return nil
end

-- The algorithms by id; each file adds one function
-- (state, now, permits, burst, period, cost, log_key)
--   -> outcome, remaining, resetAfter, retryAfter, newState, commit
-- where state is the reference long[] as a Lua array (state[1] is the tag) or nil, and
-- newState is set when the outcome is ALLOWED. log_key (the sliding log's list) and commit
-- (a function of the clock argument that writes that list, run only when every limit admits)
-- are the sliding log's only.
-- Sized for the five ids at once, not grown (and rehashed) as each file adds its own.
local algorithms = { false, false, false, false, false }

-- The time to live in milliseconds (PX, PEXPIRE) of a key whose state is fully reset after
-- reset_after microseconds: rounded up, plus the slack under the test-only clock.
local function ttl_millis(clock, reset_after)
  -- Under the test-only clock override, virtual time is unrelated to the real time Redis
  -- expires keys by: keep keys this much longer (ms) so they expire only by virtual time.
  local TEST_CLOCK_TTL_SLACK_MILLIS = 600000
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

-- The value of a client's key, format 2 (docs/stores/redis.md): a MessagePack array (Redis's
-- cmsgpack, in C: a tenth of the time of the same in Lua; a struct.pack of fixed-width fields
-- saved under 2% of a decision's instructions and made a one-limit value 25 bytes longer,
-- docs/benchmarks.md) {2, base, then per limit: name,
-- expiry, state}, where base is the time of the write, and expiry (the instant after which
-- the state equals the fresh state) and the one time in a state (time_at) are microseconds
-- relative to base: small numbers, so few bytes.

-- The position of the one time in a state with this tag, or nil when it has none.
local function time_at(tag)
  if tag == 4 * 256 + 2 then
    return 3
  elseif tag == 1 * 256 + 1 or tag == 3 * 256 + 1 or tag == 5 * 256 + 2 then
    return 2
  elseif tag == 2 * 256 + 129 then
    return 3
  end
  return nil
end

-- A client's key as every driver (decide.lua, lease.lua, give-back.lua) reads it once: the
-- value's own table {2, base, then per limit: name, expiry, state}, with the expiries and the
-- states' times made absolute in place and the name of an expired entry set to false (as if
-- it were absent); {2, now} when the key holds nothing, its array sized for one limit's entry
-- (put_state's, which would otherwise grow it twice). No table of entries or index by name:
-- a client has a few limits, found by a scan (find_limit), and each table costs Redis an
-- allocation and its garbage collection per decision. A value of another format is rejected,
-- never misread.
local function read_client(key, now)
  local value = redis.call('GET', key)
  if not value then
    return { 2, now, nil, nil, nil }
  end
  local ok, fields = pcall(cmsgpack.unpack, value)
  if not ok or type(fields) ~= 'table' or fields[1] ~= 2 then
    error('sluice: state value of unknown format ' .. tostring(ok and type(fields) == 'table' and fields[1]
        or string.byte(value, 1)))
  end
  local base = fields[2]
  for i = 3, #fields, 3 do
    local expires_at = base + fields[i + 1]
    if expires_at > now then
      fields[i + 1] = expires_at
      local state = fields[i + 2]
      local at = time_at(state[1])
      if at and state[at] then
        state[at] = state[at] + base
      end
    else
      fields[i] = false
    end
  end
  return fields
end

-- The position of the name of the client's limit of this name in its fields, or nil.
local function find_limit(client, name)
  for i = 3, #client, 3 do
    if client[i] == name then
      return i
    end
  end
  return nil
end

-- The state of the client's limit of this name, or nil for the fresh state; read from the
-- limit's key in schema 1 (one key per limit, "expiresAt,tag,s1,s2,..." in decimal), when the
-- store reads it (version1_key not nil: during a rolling upgrade, so that it admits no client
-- anew), only when the client's key holds none.
local function limit_state(client, name, version1_key, now)
  for i = 3, #client, 3 do
    if client[i] == name then
      return client[i + 2]
    end
  end
  if version1_key == nil then
    return nil
  end
  local value = redis.call('GET', version1_key)
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

-- Sets the state of the client's limit of this name after a charge: kept until it is fully
-- reset, reset_after microseconds from now, or removed when that is now (the fresh state).
local function put_state(client, name, state, reset_after, now)
  local index
  for i = 3, #client, 3 do
    if client[i] == name then
      index = i
      break
    end
  end
  if reset_after > 0 then
    if not index then
      index = #client + 1
      client[index] = name
    end
    client[index + 1], client[index + 2] = now + reset_after, state
  elseif index then
    client[index] = false
  end
end

-- Writes the client's fields in format 2 with a TTL until the last of its limits is fully
-- reset, or deletes the key when none is left. The drivers' last use of the fields: the
-- entries removed are dropped, and the times made relative to now, in place, not in a copy.
local function store_client(key, client, clock, now)
  local count, n, last_expiry = #client, 2, 0
  for i = 3, count, 3 do
    local name = client[i]
    if name then
      local expires_at, state = client[i + 1], client[i + 2]
      local at = time_at(state[1])
      if at and state[at] then
        state[at] = state[at] - now
      end
      client[n + 1], client[n + 2], client[n + 3] = name, expires_at - now, state
      n = n + 3
      if expires_at > last_expiry then
        last_expiry = expires_at
      end
    end
  end
  for i = count, n + 1, -1 do
    client[i] = nil
  end
  client[2] = now
  if n > 2 then
    -- The key expires when its last limit is fully reset.
    redis.call('SET', key, cmsgpack.pack(client), 'PX', ttl_millis(clock, last_expiry - now))
  else
    redis.call('DEL', key)
  end
end

local function integer(x)
  -- x + 0 turns a negative zero into zero.
  return string.format('%.0f', x + 0)
end
