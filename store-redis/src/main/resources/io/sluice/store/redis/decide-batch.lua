-- Decides several requests in one call, each as decide.lua decides it alone, in order: the
-- function decide_batch(KEYS, ARGV), which script-decide-batch.lua calls under EVALSHA and the
-- library registers as a Redis Function. The store sends it when decisions wait for a call of
-- its own in flight (docs/stores/redis.md, "Batching"): one round trip and one script call for
-- all of them instead of one each.
-- ARGV[1]: the number of decisions n; ARGV[2 * d], ARGV[2 * d + 1]: the number of keys and of
-- arguments of decision d, as decide_request takes them; then the arguments of decision 1,
-- of decision 2, ... after ARGV[2 * n + 1]. KEYS: the keys of decision 1, of decision 2, ...
-- Returns an array of one reply per decision: decide_request's packed string, or an error
-- reply of that decision alone (a state of unknown format, a key of another type), whose
-- writes are then none (decide_request writes only once every limit has decided).
local function decide_batch(KEYS, ARGV)
  local count = tonumber(ARGV[1])
  local replies = {}
  local key_at, argument_at = 0, 2 * count + 1
  for d = 1, count do
    local key_count, argument_count = tonumber(ARGV[2 * d]), tonumber(ARGV[2 * d + 1])
    local keys, arguments = {}, {}
    for i = 1, key_count do
      keys[i] = KEYS[key_at + i]
    end
    for i = 1, argument_count do
      arguments[i] = ARGV[argument_at + i]
    end
    key_at, argument_at = key_at + key_count, argument_at + argument_count
    local ok, reply = pcall(decide_request, keys, arguments)
    if ok then
      replies[d] = reply
    elseif type(reply) == 'table' and reply.err then
      -- An error of redis.call: a table with the error's text.
      replies[d] = { err = reply.err }
    else
      replies[d] = { err = tostring(reply) }
    end
  end
  return replies
end
