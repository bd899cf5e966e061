#!lua name=sluice_${version}
-- The Redis Functions library of the store (Redis 7 and later): library-header.lua, the code
-- of every algorithm and driver, then library-footer.lua. The version is the first 16 hex
-- digits of the SHA-1 of the whole text before the version is put in, in the library's name and in
-- each function's, so that stores of different versions on one Redis each call their own
-- (function names are global to a Redis, not per library).
