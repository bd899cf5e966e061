-- gcra (id 5): state {tag, tat}, the theoretical arrival time; as io.sluice.algorithms.Gcra.
algorithms[5] = function(state, now, permits, burst, period, cost)
  local tag = 5 * 256 + 1
  local interval = token_interval(permits, period)
  local tau = burst * interval
  local tat = now
  if state ~= nil and state[1] == tag and #state == 2 then
    tat = math.max(state[2], now)
  end
  local owed = tat - now
  if cost > burst then
    return COST_EXCEEDS_CAPACITY, idiv(math.max(0, tau - owed), interval), owed, 0, nil
  end
  local next = tat + cost * interval
  if next - now <= tau then
    return ALLOWED, idiv(tau - (next - now), interval), next - now, 0, { tag, next }
  end
  return DENIED, idiv(math.max(0, tau - owed), interval), owed, next - now - tau, nil
end
