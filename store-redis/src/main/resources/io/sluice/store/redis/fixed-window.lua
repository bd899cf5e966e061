-- fixed-window (id 1): state {tag, windowStart, count}; as io.sluice.algorithms.FixedWindow.
algorithms[1] = function(state, now, permits, burst, period, cost)
  local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2
  local tag = 1 * 256 + 1
  local stored = state ~= nil and state[1] == tag and #state == 3
  -- A clock that went back is read as the stored window's time: nothing refills.
  local at = now
  if stored and state[2] > now then
    at = state[2]
  end
  local window_start = at - floor_mod(at, period)
  local count = 0
  if stored and state[2] == window_start then
    count = state[3]
  end
  local window_ends_after = window_start + period - now
  if cost > permits then
    local reset_after = 0
    if count > 0 then
      reset_after = window_ends_after
    end
    return COST_EXCEEDS_CAPACITY, math.max(0, permits - count), reset_after, 0, nil
  end
  if count + cost <= permits then
    return ALLOWED, permits - count - cost, window_ends_after, 0, { tag, window_start, count + cost }
  end
  return DENIED, math.max(0, permits - count), window_ends_after, window_ends_after, nil
end
