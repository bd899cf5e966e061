return decide_request(KEYS, ARGV)
