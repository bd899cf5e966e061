-- Takes a lease (the function take_lease(KEYS, ARGV), which script-lease.lua calls under
-- EVALSHA and the library registers as a Redis Function): the largest batch of tokens, up to
-- a most, that every limit of one client admits now, charged to all of them at once; as
-- io.sluice.algorithms.KeyState.lease.
-- KEYS[1]: the client's key (format 2, common.lua); when schema 1 is read, KEYS[1 + i]: limit
-- i's key in schema 1, read only when KEYS[1] holds no state of limit i (as decide.lua).
-- ARGV: clock ('redis' or 'test:<micros>'), the most tokens, then per limit: name, algorithm
--       id, permits, burst, period in microseconds. Only the leasable algorithms (fixed window,
--       sliding window counter, token bucket, GCRA; never the sliding log) are loaded with it.
-- Each limit is probed with a request of one token: its remaining + 1 is the largest cost it
-- admits now. When every probe admits, the smallest of those (and the most) is charged to
-- every limit, and the states are written as decide.lua writes them; else nothing is written.
-- Returns: tokens (0 when a limit cannot give one), the time of the lease, then per limit
-- outcome, remaining, resetAfter, retryAfter of the charge (of the one-token probe when 0).

local function take_lease(KEYS, ARGV)
  local ARGS_PER_LIMIT = 5

  local clock = ARGV[1]
  local now = now_micros(clock)
  local most = tonumber(ARGV[2])
  local client = read_client(KEYS[1], now)
  local limits = (#ARGV - 2) / ARGS_PER_LIMIT
  local states, params = {}, {}
  for i = 1, limits do
    local a = 2 + (i - 1) * ARGS_PER_LIMIT
    states[i] = limit_state(client, ARGV[a + 1], KEYS[1 + i], now)
    params[i] = { name = ARGV[a + 1], algorithm = algorithms[tonumber(ARGV[a + 2])],
      permits = tonumber(ARGV[a + 3]), burst = tonumber(ARGV[a + 4]), period = tonumber(ARGV[a + 5]) }
  end

  -- Every limit's answer to a request of cost: all_allowed, the reply fields, new states, resets.
  local function run(cost)
    local all_allowed, reply, new_states, reset_afters = true, {}, {}, {}
    for i = 1, limits do
      local p = params[i]
      local outcome, remaining, reset_after, retry_after, new_state = p.algorithm(states[i], now,
          p.permits, p.burst, p.period, cost)
      all_allowed = all_allowed and outcome == ALLOWED
      new_states[i], reset_afters[i] = new_state, reset_after
      reply[#reply + 1] = outcome
      reply[#reply + 1] = remaining
      reply[#reply + 1] = reset_after
      reply[#reply + 1] = retry_after
    end
    return all_allowed, reply, new_states, reset_afters
  end

  local function answer(tokens, reply)
    local result = { tokens, now }
    for _, field in ipairs(reply) do
      result[#result + 1] = field
    end
    return result
  end

  local probed, probe_reply = run(1)
  if not probed then
    return answer(0, probe_reply)
  end
  local tokens = most
  for i = 1, limits do
    -- The probe's remaining, field 2 of the limit's four.
    tokens = math.min(tokens, probe_reply[4 * (i - 1) + 2] + 1)
  end
  local allowed, reply, new_states, reset_afters = run(tokens)
  if not allowed then
    error('sluice: a limit admitted one token with ' .. integer(tokens) .. ' remaining but denied a lease of them')
  end
  for i = 1, limits do
    put_state(client, params[i].name, new_states[i], reset_afters[i], now)
  end
  store_client(KEYS[1], client, clock, now)
  return answer(tokens, reply)
end
