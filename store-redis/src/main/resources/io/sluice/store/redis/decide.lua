-- Decides one request against all the limits of one client, all-or-nothing.
-- KEYS[1]: the client's key, holding the states of all its limits (format 2, common.lua);
-- KEYS[1 + i]: limit i's key in schema 1, read only when KEYS[1] holds no state of limit i;
-- then the log key of each sliding-log limit, in the order of the limits.
-- ARGV: clock ('redis' or 'test:<micros>'), cost, then per limit: name, algorithm id,
--       permits, burst, period in microseconds.
-- Writes every limit's new state, and a TTL until the last of them is fully reset, only
-- when every limit admits (and there is at least one: without limits, as the store's warm-up
-- sends it, it only reads). Returns per limit: outcome, remaining, resetAfter, retryAfter.

local ARGS_PER_LIMIT = 5
local SLIDING_LOG = 2

local clock = ARGV[1]
local now = now_micros(clock)
local cost = tonumber(ARGV[2])
local client = read_client(KEYS[1], now)
local reply, new_states, reset_afters, commits = {}, {}, {}, {}
local all_allowed = true
local limits = (#ARGV - 2) / ARGS_PER_LIMIT
local log_keys = 1 + limits
for i = 1, limits do
  local a = 2 + (i - 1) * ARGS_PER_LIMIT
  local id = tonumber(ARGV[a + 2])
  local algorithm = algorithms[id]
  local log_key
  if id == SLIDING_LOG then
    log_keys = log_keys + 1
    log_key = KEYS[log_keys]
  end
  local state = limit_state(client, ARGV[a + 1], KEYS[1 + i], now)
  local outcome, remaining, reset_after, retry_after, new_state, commit = algorithm(state, now,
      tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), cost, log_key)
  all_allowed = all_allowed and outcome == ALLOWED
  new_states[i], reset_afters[i], commits[i] = new_state, reset_after, commit
  reply[#reply + 1] = outcome
  reply[#reply + 1] = remaining
  reply[#reply + 1] = reset_after
  reply[#reply + 1] = retry_after
end
if all_allowed and limits > 0 then
  for i = 1, limits do
    if commits[i] then
      commits[i](clock)
    end
    put_state(client, ARGV[2 + (i - 1) * ARGS_PER_LIMIT + 1], new_states[i], reset_afters[i], now)
  end
  store_client(client, clock, now)
end
return reply
