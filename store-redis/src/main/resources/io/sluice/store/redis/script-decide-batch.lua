return decide_batch(KEYS, ARGV)
