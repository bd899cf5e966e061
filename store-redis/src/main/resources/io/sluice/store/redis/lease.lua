-- Takes a lease (the function take_lease(KEYS, ARGV), which script-lease.lua calls under
-- EVALSHA and the library registers as a Redis Function): the largest batch of tokens, up to
-- a most, that every limit of one client admits now, charged to all of them at once; as
-- io.sluice.algorithms.KeyState.lease.
-- KEYS[1]: the client's key (format 2, common.lua); when schema 1 is read, KEYS[1 + i]: limit
-- i's key in schema 1, read only when KEYS[1] holds no state of limit i (as decide.lua).
-- ARGV: clock ('redis' or 'test:<micros>'), the most tokens, then the limits as decide.lua
--       takes them: the numbers as one MessagePack array (1 to read schema 1, else 0, then per
--       limit: algorithm id, permits, burst, period in microseconds), then each limit's name.
--       Only the leasable algorithms (fixed window, sliding window counter, token bucket,
--       GCRA; never the sliding log) are loaded with it.
-- Each limit is probed with a request of one token: its remaining + 1 is the largest cost it
-- admits now. When every probe admits, the smallest of those (and the most) is charged to
-- every limit, and the states are written as decide.lua writes them; else nothing is written.
-- Returns: tokens (0 when a limit cannot give one), the time of the lease, then per limit
-- outcome, remaining, resetAfter, retryAfter of the charge (of the one-token probe when 0),
-- packed as decide.lua packs its reply (struct.pack of big-endian 64-bit integers).

local function take_lease(KEYS, ARGV)
  local clock = ARGV[1]
  local now = now_micros(clock)
  local most = tonumber(ARGV[2])
  local numbers = cmsgpack.unpack(ARGV[3])
  local limits = #ARGV - 3
  local client = read_client(KEYS[1], now)
  local version1 = numbers[1] == 1
  local states = {}
  for i = 1, limits do
    local version1_key
    if version1 then
      version1_key = KEYS[1 + i]
    end
    states[i] = limit_state(client, ARGV[3 + i], version1_key, now)
  end

  -- Every limit's answer to a request of cost: all_allowed, the reply fields, new states, resets.
  local function run(cost)
    local all_allowed, reply, new_states, reset_afters = true, {}, {}, {}
    for i = 1, limits do
      local n = 4 * i + 1
      local outcome, remaining, reset_after, retry_after, new_state = algorithms[numbers[n - 3]](states[i],
          now, numbers[n - 2], numbers[n - 1], numbers[n], cost)
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
    return struct.pack('>i8i8' .. string.rep('i8', 4 * limits), tokens, now, unpack(reply))
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
    put_state(client, ARGV[3 + i], new_states[i], reset_afters[i], now)
  end
  store_client(KEYS[1], client, clock, now)
  return answer(tokens, reply)
end
