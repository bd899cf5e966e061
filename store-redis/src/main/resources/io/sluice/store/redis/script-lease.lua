return take_lease(KEYS, ARGV)
