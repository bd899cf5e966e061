-- Whether a limit's key holds a state that has not expired by the store's clock.
-- KEYS[1]: the limit's key. ARGV[1]: clock ('redis' or 'test:<micros>').
if read_state(redis.call('GET', KEYS[1]), now_micros(ARGV[1])) then
  return 1
end
return 0
