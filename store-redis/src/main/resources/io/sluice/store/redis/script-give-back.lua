return give_back_lease(KEYS, ARGV, cmsgpack.unpack(ARGV[4]))
