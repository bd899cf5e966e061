-- Decides one request against all the limits of one client, all-or-nothing: the function
-- decide_request(KEYS, ARGV), which script-decide.lua calls under EVALSHA and the library
-- registers as a Redis Function.
-- KEYS[1]: the client's key, holding the states of all its limits (format 2, common.lua);
-- when schema 1 is read, KEYS[1 + i]: limit i's key in schema 1, read only when KEYS[1] holds
-- no state of limit i; then the log key of each sliding-log limit, in the order of the limits.
-- ARGV: clock ('redis' or 'test:<micros>'), cost, the numbers as one MessagePack array (1 to
--       read schema 1, else 0, then per limit: algorithm id, permits, burst, period in
--       microseconds; one cmsgpack.unpack in C instead of a tonumber per number), then each
--       limit's name.
-- Writes every limit's new state, and a TTL until the last of them is fully reset, only
-- when every limit admits (and there is at least one: without limits, as the store's warm-up
-- sends it, it only reads). Returns per limit outcome, remaining, resetAfter, retryAfter,
-- packed as big-endian 64-bit integers into one string (struct.pack: no Lua table of the
-- reply for Redis to convert).
-- No table grows here: Lua reallocates a table's array at each power of two it passes, and
-- Redis then pays the reallocation and its garbage per decision. The reply is packed limit by
-- limit into the string, and each limit's pending write takes the places of its numbers,
-- read by then (callgrind, jmh/redis-callgrind.py: with read_client's table for a new client
-- sized for one limit, 96,000 -> 86,500 instructions per token-bucket decision).
local function decide_request(KEYS, ARGV)
  local ALLOWED, SLIDING_LOG = 1, 2
  local clock = ARGV[1]
  local now = now_micros(clock)
  local cost = tonumber(ARGV[2])
  local numbers = cmsgpack.unpack(ARGV[3])
  local limits = #ARGV - 3
  local client = read_client(KEYS[1], now)
  local version1 = numbers[1] == 1
  -- reply: four fields per limit.
  local reply = ''
  local all_allowed = true
  local log_keys = 1
  if version1 then
    log_keys = 1 + limits
  end
  for i = 1, limits do
    local n = 4 * i + 1
    local id = numbers[n - 3]
    local log_key
    if id == SLIDING_LOG then
      log_keys = log_keys + 1
      log_key = KEYS[log_keys]
    end
    local state = limit_state(client, ARGV[3 + i], version1 and KEYS[1 + i] or nil, now)
    local outcome, remaining, reset_after, retry_after, new_state, commit = algorithms[id](state, now,
        numbers[n - 2], numbers[n - 1], numbers[n], cost, log_key)
    all_allowed = all_allowed and outcome == ALLOWED
    reply = reply .. struct.pack('>i8i8i8i8', outcome, remaining, reset_after, retry_after)
    -- The write pending until every limit has admitted: new state, reset and commit.
    numbers[n - 3], numbers[n - 2], numbers[n - 1] = new_state, reset_after, commit or false
  end
  if all_allowed and limits > 0 then
    for i = 1, limits do
      local n = 4 * i + 1
      local commit = numbers[n - 1]
      if commit then
        commit(clock)
      end
      put_state(client, ARGV[3 + i], numbers[n - 3], numbers[n - 2], now)
    end
    store_client(KEYS[1], client, clock, now)
  end
  return reply
end
