-- sliding-log (id 2): the decisions of io.sluice.algorithms.SlidingLog, with the log in a list
-- key of its own (log_key, same hash tag: "time:cost" per entry, oldest first) so that a
-- decision never reads or rewrites the whole log. The client's value keeps {LOG_TAG, used,
-- last}: the sum of the costs in the list (expired entries included until they are trimmed)
-- and the newest entry's time. A denial reads the entries it frees, so O(cost) (one for a
-- cost of 1); an admission trims the expired head (each entry once) and appends one entry.
-- A log of the reference's form ({tag, t1, c1, ...}, key schema 1) is moved into the list
-- when next admitted.
algorithms[2] = function(state, now, permits, burst, period, cost, log_key)
  local DENIED, ALLOWED, COST_EXCEEDS_CAPACITY = 0, 1, 2
  local tag, LOG_TAG = 2 * 256 + 1, 2 * 256 + 129
  -- The entries, oldest first: entry(i) -> time, cost for i in 1..count.
  local entry, count, listed_cost
  if state ~= nil and state[1] == LOG_TAG and #state == 3 then
    count = redis.call('LLEN', log_key)
    listed_cost = state[2]
    entry = function(i)
      local time, c = string.match(redis.call('LINDEX', log_key, i - 1), '^(%d+):(%d+)$')
      return tonumber(time), tonumber(c)
    end
  else
    local inline = {}
    if state ~= nil and state[1] == tag and #state % 2 == 1 then
      inline = state
    end
    count = (#inline - 1) / 2
    if count < 0 then
      count = 0
    end
    entry = function(i)
      return inline[2 * i], inline[2 * i + 1]
    end
    listed_cost = 0
    for i = 1, count do
      local _, c = entry(i)
      listed_cost = listed_cost + c
    end
  end
  if count == 0 then
    listed_cost = 0
  end

  -- Expired entries at the head (a list keeps them until an admission trims them).
  local first, expired_cost = 1, 0
  while first <= count do
    local time, c = entry(first)
    if time > now - period then
      break
    end
    expired_cost = expired_cost + c
    first = first + 1
  end
  local used = listed_cost - expired_cost
  local empty = first > count
  local last_time, last_cost, all_expire_after = 0, 0, 0
  if not empty then
    last_time, last_cost = entry(count)
    all_expire_after = last_time + period - now
  end
  if cost > permits then
    return COST_EXCEEDS_CAPACITY, math.max(0, permits - used), all_expire_after, 0, nil
  end
  if used + cost <= permits then
    local entry_time = now
    if not empty and last_time >= now then
      -- Same microsecond, or a clock that went back: add to the newest entry so that times
      -- stay in order and nothing expires earlier than it would have.
      entry_time = last_time
    end
    local reset_after = entry_time + period - now
    local commit = function(clock)
      if state ~= nil and state[1] == LOG_TAG and #state == 3 and count > 0 then
        if first > 1 then
          redis.call('LTRIM', log_key, first - 1, -1)
        end
      else
        -- Fresh, or a log of the reference's form: the list starts with its unexpired entries.
        redis.call('DEL', log_key)
        for i = first, count do
          local time, c = entry(i)
          redis.call('RPUSH', log_key, integer(time) .. ':' .. integer(c))
        end
      end
      if entry_time == last_time and not empty then
        redis.call('LSET', log_key, -1, integer(last_time) .. ':' .. integer(last_cost + cost))
      else
        redis.call('RPUSH', log_key, integer(now) .. ':' .. integer(cost))
      end
      redis.call('PEXPIRE', log_key, integer(ttl_millis(clock, reset_after)))
    end
    return ALLOWED, permits - used - cost, reset_after, 0, { LOG_TAG, used + cost, entry_time }, commit
  end
  local freed, k, time = 0, first, 0
  while used - freed + cost > permits do
    local c
    time, c = entry(k)
    freed = freed + c
    k = k + 1
  end
  return DENIED, math.max(0, permits - used), all_expire_after, time + period - now, nil
end
