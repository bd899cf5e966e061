-- Whether a client's key holds a state of one limit that has not expired by the store's clock.
-- KEYS[1]: the client's key. ARGV: clock ('redis' or 'test:<micros>'), the limit's name.
for _, entry in ipairs(read_entries(redis.call('GET', KEYS[1]), now_micros(ARGV[1]))) do
  if entry.name == ARGV[2] then
    return 1
  end
end
return 0
