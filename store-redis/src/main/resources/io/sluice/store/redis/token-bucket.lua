-- token-bucket (id 4): state {tag, units, last, scale}, tokens in units of 1 / scale token at
-- the time last, up to burst * scale; as io.sluice.algorithms.TokenBucket (states of another
-- scale keep their whole tokens; version 1 states, {tag, tokens, lastRefill}, are read).

-- When a bucket of units left, refilling per_micro units a microsecond after lag, is full.
local function bucket_reset_after(left, capacity, per_micro, lag)
  if left == capacity then
    return 0
  end
  return lag + ceil_div(capacity - left, per_micro)
end

algorithms[4] = function(state, now, permits, burst, period, cost)
  local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2
  local tag = 4 * 256 + 2
  local per_micro, scale = bucket_rate(permits, burst, period)
  local capacity = burst * scale
  local units, last = capacity, now
  local stored = bucket_units(state, scale, burst)
  if stored ~= nil then
    units, last = stored, state[3]
  end
  if now > last then
    local elapsed = now - last
    if elapsed >= ceil_div(capacity - units, per_micro) then
      units = capacity
    else
      units = units + elapsed * per_micro
    end
    last = now
  end
  -- A clock that went back refills nothing until it passes last again.
  local lag = last - now
  if cost > burst then
    return COST_EXCEEDS_CAPACITY, idiv(units, scale), bucket_reset_after(units, capacity, per_micro, lag), 0, nil
  end
  local needed = cost * scale
  if units >= needed then
    local left = units - needed
    return ALLOWED, idiv(left, scale), bucket_reset_after(left, capacity, per_micro, lag), 0,
        { tag, left, last, scale }
  end
  return DENIED, idiv(units, scale), bucket_reset_after(units, capacity, per_micro, lag),
      lag + ceil_div(needed - units, per_micro), nil
end
