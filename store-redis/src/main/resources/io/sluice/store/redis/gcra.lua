-- gcra (id 5): state {tag, tat, fraction}, the theoretical arrival time tat + fraction /
-- tokens_per_micro; as io.sluice.algorithms.Gcra (version 1 states, {tag, tat}, are read).
algorithms[5] = function(state, now, permits, burst, period, cost)
  local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2
  local tag, tag_v1 = 5 * 256 + 2, 5 * 256 + 1
  local per_micro, scale = bucket_rate(permits, burst, period)
  local tau = burst * scale
  local tat, fraction = now, 0
  if state ~= nil and #state == 3 and state[1] == tag then
    tat, fraction = state[2], math.max(0, math.min(state[3], per_micro - 1))
  elseif state ~= nil and #state == 2 and state[1] == tag_v1 then
    tat = state[2]
  end
  if tat < now then
    tat, fraction = now, 0
  end
  local ahead = tat - now
  local tau_micros = idiv(tau, per_micro)
  if ahead > tau_micros then
    -- Owes more than the whole bucket (a clock that went back, a burst lowered): counted in
    -- microseconds, as the owed units could pass 2^53.
    local reset_after = ahead
    if fraction > 0 then
      reset_after = ahead + 1
    end
    if cost > burst then
      return COST_EXCEEDS_CAPACITY, 0, reset_after, 0, nil
    end
    local beyond = fraction + cost * scale - (tau - tau_micros * per_micro)
    return DENIED, 0, reset_after, ahead - tau_micros + ceil_div(beyond, per_micro), nil
  end
  local owed = ahead * per_micro + fraction
  local remaining = idiv(math.max(0, tau - owed), scale)
  if cost > burst then
    return COST_EXCEEDS_CAPACITY, remaining, ceil_div(owed, per_micro), 0, nil
  end
  local next = owed + cost * scale
  if next <= tau then
    return ALLOWED, idiv(tau - next, scale), ceil_div(next, per_micro), 0,
        { tag, now + idiv(next, per_micro), floor_mod(next, per_micro) }
  end
  return DENIED, remaining, ceil_div(owed, per_micro), ceil_div(next - tau, per_micro), nil
end
