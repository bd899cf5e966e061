-- The limits' numbers of a call (its MessagePack argument) unpacked once per argument: a
-- library keeps its locals from call to call, and a limiter sends the same argument on every
-- call, so a decision looks its numbers up instead of unpacking them (callgrind,
-- jmh/redis-callgrind.py: about 4,800 instructions per decision, 5.5%). The drivers only read
-- them. Derived from the argument alone, so nothing is lost when Redis restarts or the library
-- is loaded again; at most MAX_UNPACKED arguments are kept, all dropped when one more comes.
local unpacked, unpacked_count = {}, 0
local function limit_numbers(argument)
  local MAX_UNPACKED = 256
  local numbers = unpacked[argument]
  if numbers == nil then
    numbers = cmsgpack.unpack(argument)
    if unpacked_count == MAX_UNPACKED then
      unpacked, unpacked_count = {}, 0
    end
    unpacked[argument], unpacked_count = numbers, unpacked_count + 1
  end
  return numbers
end

-- The functions the store calls with FCALL, each the driver of one script under EVALSHA.
redis.register_function('sluice_${version}_decide', function(keys, args)
  return decide_request(keys, args, limit_numbers(args[3]))
end)
redis.register_function('sluice_${version}_lease', function(keys, args)
  return take_lease(keys, args, limit_numbers(args[3]))
end)
redis.register_function('sluice_${version}_give_back', function(keys, args)
  return give_back_lease(keys, args, limit_numbers(args[4]))
end)
