-- Shared by lease.lua and give-back.lua: writes a client's entries (false for one removed)
-- as decide.lua does, with a TTL until the last of them is fully reset, or deletes the key
-- when none is left.
local function store_entries(key, entries, clock, now)
  local kept, last_expiry = {}, 0
  for _, entry in ipairs(entries) do
    if entry then
      kept[#kept + 1] = entry
      last_expiry = math.max(last_expiry, entry.expires_at)
    end
  end
  if #kept > 0 then
    redis.call('SET', key, write_entries(kept, now), 'PX', ttl_millis(clock, last_expiry - now))
  else
    redis.call('DEL', key)
  end
end
