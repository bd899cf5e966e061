return decide_request(KEYS, ARGV, cmsgpack.unpack(ARGV[3]))
