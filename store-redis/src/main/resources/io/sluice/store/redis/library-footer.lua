-- The functions the store calls with FCALL, each the driver of one script under EVALSHA.
redis.register_function('sluice_${version}_decide', decide_request)
redis.register_function('sluice_${version}_lease', take_lease)
redis.register_function('sluice_${version}_give_back', give_back_lease)
