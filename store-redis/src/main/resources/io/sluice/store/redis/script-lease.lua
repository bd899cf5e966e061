return take_lease(KEYS, ARGV, cmsgpack.unpack(ARGV[3]))
