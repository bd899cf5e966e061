return give_back_lease(KEYS, ARGV)
