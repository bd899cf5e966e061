-- Decides one request against all the limits of one client, all-or-nothing, with Redis TIME.
-- KEYS: one key per limit, all under the client's hash tag (one slot).
-- ARGV: clock ('redis' or 'test:<micros>'), cost, then per limit: algorithm id, permits,
--       burst, period in microseconds.
-- Writes every limit's new state, with a TTL, only when every limit admits.
-- Returns per limit: outcome, remaining, resetAfter, retryAfter.

-- Under the test-only clock override, virtual time is unrelated to the real time Redis
-- expires keys by: keep keys this much longer (ms) so they expire only by virtual time.
local TEST_CLOCK_TTL_SLACK_MILLIS = 600000

local clock = ARGV[1]
local now = now_micros(clock)
local cost = tonumber(ARGV[2])
local reply, new_states, reset_afters = {}, {}, {}
local all_allowed = true
for i = 1, #KEYS do
  local a = 2 + (i - 1) * 4
  local algorithm = algorithms[tonumber(ARGV[a + 1])]
  local state = read_state(redis.call('GET', KEYS[i]), now)
  local outcome, remaining, reset_after, retry_after, new_state = algorithm(state, now,
      tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), cost)
  all_allowed = all_allowed and outcome == ALLOWED
  new_states[i], reset_afters[i] = new_state, reset_after
  reply[#reply + 1] = outcome
  reply[#reply + 1] = remaining
  reply[#reply + 1] = reset_after
  reply[#reply + 1] = retry_after
end
if all_allowed then
  for i = 1, #KEYS do
    local reset_after = reset_afters[i]
    if reset_after > 0 then
      -- The state expires when the limit is fully reset: PX takes milliseconds, rounded up.
      local ttl = idiv(reset_after + 999, 1000)
      if clock ~= 'redis' then
        ttl = ttl + TEST_CLOCK_TTL_SLACK_MILLIS
      end
      redis.call('SET', KEYS[i], write_value(now + reset_after, new_states[i]), 'PX', integer(ttl))
    else
      redis.call('DEL', KEYS[i])
    end
  end
end
return reply
