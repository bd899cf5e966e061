-- sliding-window-counter (id 3): state {tag, windowStart, current, previous}; the previous
-- window weighted by overlap in at most 2^20 steps; as io.sluice.algorithms.SlidingWindowCounter.
algorithms[3] = function(state, now, permits, burst, period, cost)
  local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2
  local tag = 3 * 256 + 1
  local step = math.max(1, idiv(period, 1048576))
  local den = idiv(period, step)

  -- The previous window's count n as seen e into the current window.
  local function weighted(n, e)
    return idiv(n * idiv(period - e, step), den)
  end

  -- The smallest e in [0, period] at which weighted(n, e) <= r.
  local function first_fit(n, r)
    if n == 0 then
      return 0
    end
    local max_num = idiv((r + 1) * den - 1, n)
    if max_num >= den then
      return 0
    end
    return period - (max_num + 1) * step + 1
  end

  local function reset_after(window_start, current, previous)
    if current > 0 then
      return window_start + period + first_fit(current, 0) - now
    end
    if previous > 0 then
      return math.max(0, window_start + first_fit(previous, 0) - now)
    end
    return 0
  end

  local stored = state ~= nil and state[1] == tag and #state == 4
  -- A clock that went back is read as the stored window's start: nothing refills.
  local at = now
  if stored and state[2] > now then
    at = state[2]
  end
  local window_start = at - floor_mod(at, period)
  local elapsed = at - window_start
  local current, previous = 0, 0
  if stored and state[2] == window_start then
    current, previous = state[3], state[4]
  elseif stored and state[2] == window_start - period then
    previous = state[3]
  end
  local estimate = weighted(previous, elapsed) + current
  if cost > permits then
    return COST_EXCEEDS_CAPACITY, math.max(0, permits - estimate),
        reset_after(window_start, current, previous), 0, nil
  end
  if estimate + cost <= permits then
    local next = current + cost
    return ALLOWED, permits - estimate - cost, reset_after(window_start, next, previous), 0,
        { tag, window_start, next, previous }
  end
  local room = permits - cost - current
  local retry_at
  if room >= 0 then
    retry_at = window_start + math.max(elapsed, first_fit(previous, room))
  else
    retry_at = window_start + period + first_fit(current, permits - cost)
  end
  return DENIED, math.max(0, permits - estimate), reset_after(window_start, current, previous),
      retry_at - now, nil
end
