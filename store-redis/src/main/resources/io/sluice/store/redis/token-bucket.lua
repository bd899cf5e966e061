-- token-bucket (id 4): state {tag, tokens, lastRefill}; one token every ceil(period / permits)
-- microseconds up to the burst; as io.sluice.algorithms.TokenBucket.
algorithms[4] = function(state, now, permits, burst, period, cost)
  local tag = 4 * 256 + 1
  local interval = token_interval(permits, period)
  local tokens, last = burst, now
  if state ~= nil and state[1] == tag and #state == 3 then
    tokens, last = state[2], state[3]
  end
  if now > last then
    local added = idiv(now - last, interval)
    if tokens + added >= burst then
      tokens, last = burst, now
    else
      tokens, last = tokens + added, last + added * interval
    end
  end
  -- Burst lowered under a full stored bucket; the refill time is kept, so a clock that went
  -- back refills nothing.
  tokens = math.min(tokens, burst)
  local progress = now - last

  local function reset_after(remaining)
    if remaining == burst then
      return 0
    end
    return (burst - remaining) * interval - progress
  end

  if cost > burst then
    return COST_EXCEEDS_CAPACITY, tokens, reset_after(tokens), 0, nil
  end
  if tokens >= cost then
    local remaining = tokens - cost
    return ALLOWED, remaining, reset_after(remaining), 0, { tag, remaining, last }
  end
  return DENIED, tokens, reset_after(tokens), (cost - tokens) * interval - progress, nil
end
