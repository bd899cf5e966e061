-- token-bucket (id 4): state {tag, units, last, scale}, tokens in units of 1 / scale token at
-- the time last, up to burst * scale; as io.sluice.algorithms.TokenBucket (states of another
-- scale keep their whole tokens; version 1 states, {tag, tokens, lastRefill}, are read).
algorithms[4] = function(state, now, permits, burst, period, cost)
  local tag, tag_v1 = 4 * 256 + 2, 4 * 256 + 1
  local per_micro, scale = bucket_rate(permits, burst, period)
  local capacity = burst * scale
  local units, last = capacity, now
  if state ~= nil and #state == 4 and state[1] == tag and state[4] == scale then
    -- Burst lowered under a full stored bucket: capped.
    units, last = math.min(state[2], capacity), state[3]
  elseif state ~= nil and (#state == 4 and state[1] == tag and state[4] > 0 or #state == 3 and state[1] == tag_v1) then
    -- Written under other limit parameters (another scale), or version 1 (whole tokens): the
    -- whole tokens stay, capped at the burst.
    local tokens = state[2]
    if state[1] == tag then
      tokens = idiv(state[2], state[4])
    end
    units, last = math.max(0, math.min(tokens, burst)) * scale, state[3]
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

  local function reset_after(left)
    if left == capacity then
      return 0
    end
    return lag + ceil_div(capacity - left, per_micro)
  end

  if cost > burst then
    return COST_EXCEEDS_CAPACITY, idiv(units, scale), reset_after(units), 0, nil
  end
  local needed = cost * scale
  if units >= needed then
    local left = units - needed
    return ALLOWED, idiv(left, scale), reset_after(left), 0, { tag, left, last, scale }
  end
  return DENIED, idiv(units, scale), reset_after(units), lag + ceil_div(needed - units, per_micro), nil
end
