package io.sluice.store.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.algorithms.instances.Heartbeat;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The Redis store's beat: one {@code EVAL} of {@link LuaScript#HEARTBEAT} on the sorted set
 * {@link RedisKeys#INSTANCES}, on the store's connection, with Redis {@code TIME} as the clock.
 * {@code EVAL} rather than {@code EVALSHA}: one small script every few seconds, and no
 * {@code NOSCRIPT} to handle after a restart.
 */
final class RedisHeartbeat {

    private RedisHeartbeat() {
    }

    /** Starts announcing a store on {@code commands}; {@code clockForTesting} stands in for Redis {@code TIME}. */
    static Heartbeat start(RedisScriptingAsyncCommands<String, String> commands, Duration interval,
                           @Nullable TimeSource clockForTesting) {
        return Heartbeat.start("the Redis store", interval, (instanceId, ttlMicros, leave, timeout) -> {
            String clock = clockForTesting == null ? "redis" : "test:" + clockForTesting.nowMicros();
            RedisFuture<Long> live = commands.eval(LuaScript.HEARTBEAT.body(), ScriptOutputType.INTEGER,
                    new String[] {RedisKeys.INSTANCES}, clock, instanceId, Long.toString(ttlMicros), leave ? "1" : "0");
            try {
                return Math.toIntExact(live.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                // Never sent after a reconnect: the next beat says the same, later.
                live.cancel(false);
                throw e;
            }
        });
    }
}
