-- Takes a lease (the function take_lease(KEYS, ARGV, numbers), which script-lease.lua calls
-- under EVALSHA and the library's lease function under FCALL, numbers being ARGV[3] unpacked,
-- read and never written, as decide.lua's): the largest batch of tokens, up to a most, that
-- every limit of one client admits now, charged to all of them at once; as
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
-- No table grows here, as in decide.lua: the replies are packed limit by limit into their
-- strings, each limit's state is read again for the charge (a scan of the client's few
-- entries, the same table) rather than kept in a table of states, and each limit's new state
-- is put into the client's fields as it is charged (a limit that does not admit the charge
-- ends the call with an error: nothing is written). Nor is a function created per call.
local function take_lease(KEYS, ARGV, numbers)
  local ALLOWED = 1
  local clock = ARGV[1]
  local now = now_micros(clock)
  local most = tonumber(ARGV[2])
  local limits = #ARGV - 3
  local client = read_client(KEYS[1], now)
  local version1 = numbers[1] == 1

  -- The probe: every limit's answer to a request of one token. Its remaining + 1 is the
  -- largest cost the limit admits now.
  local reply = ''
  local probed = true
  local tokens = most
  for i = 1, limits do
    local n = 4 * i + 1
    local outcome, remaining, reset_after, retry_after = algorithms[numbers[n - 3]](
        limit_state(client, ARGV[3 + i], version1 and KEYS[1 + i] or nil, now), now,
        numbers[n - 2], numbers[n - 1], numbers[n], 1)
    probed = probed and outcome == ALLOWED
    reply = reply .. struct.pack('>i8i8i8i8', outcome, remaining, reset_after, retry_after)
    tokens = math.min(tokens, remaining + 1)
  end
  if not probed then
    return struct.pack('>i8i8', 0, now) .. reply
  end

  -- The charge of tokens to every limit, written only once every limit has admitted it.
  reply = ''
  for i = 1, limits do
    local n = 4 * i + 1
    local outcome, remaining, reset_after, retry_after, new_state = algorithms[numbers[n - 3]](
        limit_state(client, ARGV[3 + i], version1 and KEYS[1 + i] or nil, now), now,
        numbers[n - 2], numbers[n - 1], numbers[n], tokens)
    if outcome ~= ALLOWED then
      error('sluice: a limit admitted one token with ' .. integer(tokens) .. ' remaining but denied a lease of them')
    end
    reply = reply .. struct.pack('>i8i8i8i8', outcome, remaining, reset_after, retry_after)
    put_state(client, ARGV[3 + i], new_state, reset_after, now)
  end
  store_client(KEYS[1], client, clock, now)
  return struct.pack('>i8i8', tokens, now) .. reply
end
