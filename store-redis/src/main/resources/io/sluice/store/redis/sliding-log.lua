-- sliding-log (id 2): state {tag, t1, c1, t2, c2, ...}, times strictly increasing;
-- as io.sluice.algorithms.SlidingLog.
algorithms[2] = function(state, now, permits, burst, period, cost)
  local tag = 2 * 256 + 1
  -- Lua indices are the reference's plus one: entries start at 2, times at even indices.
  local last_index = 1
  if state ~= nil and state[1] == tag and #state % 2 == 1 then
    last_index = #state
  end
  local first = 2
  while first <= last_index and state[first] <= now - period do
    first = first + 2
  end
  local used = 0
  for i = first, last_index, 2 do
    used = used + state[i + 1]
  end
  local empty = first > last_index
  local last_time = 0
  local all_expire_after = 0
  if not empty then
    last_time = state[last_index - 1]
    all_expire_after = last_time + period - now
  end
  if cost > permits then
    return COST_EXCEEDS_CAPACITY, math.max(0, permits - used), all_expire_after, 0, nil
  end
  if used + cost <= permits then
    local next_state = { tag }
    for i = first, last_index do
      next_state[#next_state + 1] = state[i]
    end
    local entry_time
    if not empty and last_time >= now then
      -- Same microsecond, or a clock that went back: add to the newest entry so that times
      -- stay in order and nothing expires earlier than it would have.
      entry_time = last_time
      next_state[#next_state] = next_state[#next_state] + cost
    else
      entry_time = now
      next_state[#next_state + 1] = now
      next_state[#next_state + 1] = cost
    end
    return ALLOWED, permits - used - cost, entry_time + period - now, 0, next_state
  end
  local freed = 0
  local k = first
  while used - freed + cost > permits do
    freed = freed + state[k + 1]
    k = k + 2
  end
  return DENIED, math.max(0, permits - used), all_expire_after, state[k - 2] + period - now, nil
end
