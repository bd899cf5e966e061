-- Decides one request against all the limits of one client, all-or-nothing: the function
-- decide_request(KEYS, ARGV, numbers), which script-decide.lua calls under EVALSHA and the
-- library's decide function calls under FCALL, numbers being ARGV[3] unpacked (read, never
-- written: the library unpacks each argument once, library-footer.lua).
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
-- limit into the string (the first limit's is the reply: no concatenation to an empty one),
-- and each admitting limit's new state is put into the client's fields at once, which are
-- written only when every limit admits (the names are distinct: no later limit reads it); only
-- the sliding log's commits wait in a table of their own (callgrind, jmh/redis-callgrind.py:
-- with read_client's table for a new client sized for one limit, 96,000 -> 86,500
-- instructions per token-bucket decision).
local function decide_request(KEYS, ARGV, numbers)
  local ALLOWED, SLIDING_LOG = 1, 2
  local clock = ARGV[1]
  local now = now_micros(clock)
  local cost = tonumber(ARGV[2])
  local limits = #ARGV - 3
  local client = read_client(KEYS[1], now)
  local version1 = numbers[1] == 1
  -- reply: four fields per limit.
  local reply
  local all_allowed = true
  local commits
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
    local fields = struct.pack('>i8i8i8i8', outcome, remaining, reset_after, retry_after)
    if reply then
      reply = reply .. fields
    else
      reply = fields
    end
    all_allowed = all_allowed and outcome == ALLOWED
    if all_allowed then
      put_state(client, ARGV[3 + i], new_state, reset_after, now)
      if commit then
        if commits then
          commits[#commits + 1] = commit
        else
          commits = { commit }
        end
      end
    end
  end
  if all_allowed and limits > 0 then
    if commits then
      for i = 1, #commits do
        commits[i](clock)
      end
    end
    store_client(KEYS[1], client, clock, now)
  end
  return reply or ''
end
