-- Gives back the unused tokens of a lease (the function give_back_lease(KEYS, ARGV), which
-- script-give-back.lua calls under EVALSHA and the library registers as a Redis Function) to
-- the limits of one client that can take them back without ever admitting more than if they
-- had never been taken; as
-- io.sluice.algorithms.KeyState.giveBack and each algorithm's giveBack (LeaseReturn), line by
-- line. Tokens a limit cannot take back are dropped there: under-admission, never over-admission.
-- KEYS[1]: the client's key (format 2, common.lua).
-- ARGV: clock ('redis' or 'test:<micros>'), the unused tokens (at least 1), the lease's time,
--       then the limits as decide.lua takes them: the numbers as one MessagePack array (the
--       schema-1 flag, unused here: a give-back reads only the client's key; then per limit:
--       algorithm id, permits, burst, period in microseconds), then each limit's name.
-- Each state keeps its expiry, which stays a safe bound. Writes only when a state changed.
-- Returns 1 when it wrote, else 0.

-- The state after unused tokens of a lease taken at taken_at are given back at now, or nil
-- when none can be; by algorithm id. Arguments: state, now, permits, burst, period, taken_at, unused.
local give_back = {}

-- fixed-window (FixedWindow.giveBack): off the count while the window is the lease's.
give_back[1] = function(state, now, permits, burst, period, taken_at, unused)
  local tag = 1 * 256 + 1
  local window_start = taken_at - floor_mod(taken_at, period)
  if state[1] ~= tag or #state ~= 3 or state[2] ~= window_start
      or now - floor_mod(now, period) ~= window_start then
    return nil
  end
  return { tag, window_start, math.max(0, state[3] - unused) }
end

-- sliding-window-counter (SlidingWindowCounter.giveBack): off the current count while the
-- window is the lease's; once it is the previous window it is only ever weighted down.
give_back[3] = function(state, now, permits, burst, period, taken_at, unused)
  local tag = 3 * 256 + 1
  local window_start = taken_at - floor_mod(taken_at, period)
  if state[1] ~= tag or #state ~= 4 or state[2] ~= window_start
      or now - floor_mod(now, period) ~= window_start then
    return nil
  end
  return { tag, window_start, math.max(0, state[3] - unused), state[4] }
end

-- The units of unused tokens that may go back since microseconds after their lease (as
-- TokenBucket.returnable): less the refill of that time, which the bucket without the lease
-- may have wasted at its capacity. unused is at most the burst, so every product stays below 2^53.
local function returnable(per_micro, scale, capacity, unused, since)
  since = math.max(0, since)
  if since >= ceil_div(capacity, per_micro) then
    return 0
  end
  return unused * scale - since * per_micro
end

-- token-bucket (TokenBucket.giveBack): back into the bucket refilled to now, up to its
-- capacity, less what the bucket refilled since the lease.
give_back[4] = function(state, now, permits, burst, period, taken_at, unused)
  local tag = 4 * 256 + 2
  local per_micro, scale = bucket_rate(permits, burst, period)
  local capacity = burst * scale
  local units = bucket_units(state, scale, burst)
  if units == nil then
    return nil
  end
  local last = state[3]
  if now > last then
    local elapsed = now - last
    if elapsed >= ceil_div(capacity - units, per_micro) then
      units = capacity
    else
      units = units + elapsed * per_micro
    end
    last = now
  end
  local back = math.min(capacity - units,
      returnable(per_micro, scale, capacity, math.min(unused, burst), now - taken_at))
  if back <= 0 then
    return nil
  end
  return { tag, units + back, last, scale }
end

-- gcra (Gcra.giveBack): the arrival time moved back by the tokens' emission, never before
-- now, less the time since the lease; an arrival time more than the whole bucket ahead (a
-- clock that went back) stays.
give_back[5] = function(state, now, permits, burst, period, taken_at, unused)
  local tag, tag_v1 = 5 * 256 + 2, 5 * 256 + 1
  local per_micro, scale = bucket_rate(permits, burst, period)
  local tat, fraction
  if #state == 3 and state[1] == tag then
    tat, fraction = state[2], math.max(0, math.min(state[3], per_micro - 1))
  elseif #state == 2 and state[1] == tag_v1 then
    tat, fraction = state[2], 0
  else
    return nil
  end
  local ahead = tat - now
  local tau = burst * scale
  if ahead < 0 or ahead > idiv(tau, per_micro) then
    return nil
  end
  local owed = ahead * per_micro + fraction
  local back = returnable(per_micro, scale, tau, math.min(unused, burst), now - taken_at)
  if back <= 0 then
    return nil
  end
  local left = math.max(0, owed - back)
  return { tag, now + idiv(left, per_micro), floor_mod(left, per_micro) }
end

local function give_back_lease(KEYS, ARGV, numbers)
  local clock = ARGV[1]
  local now = now_micros(clock)
  local unused = tonumber(ARGV[2])
  local taken_at = tonumber(ARGV[3])
  local client = read_client(KEYS[1], now)
  local changed = false
  for i = 1, #ARGV - 4 do
    local index = find_limit(client, ARGV[4 + i])
    if index then
      local n = 4 * i + 1
      local returned = give_back[numbers[n - 3]](client[index + 2], now, numbers[n - 2], numbers[n - 1],
          numbers[n], taken_at, unused)
      if returned then
        client[index + 2] = returned
        changed = true
      end
    end
  end
  if not changed then
    return 0
  end
  store_client(KEYS[1], client, clock, now)
  return 1
end
