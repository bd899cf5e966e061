package io.sluice.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.Transition;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

/**
 * What the scripts' differential tests share: a {@code redis-server} of their own, a
 * connection that writes and reads a client's value byte for byte ({@link #raw}), the store
 * on a virtual clock ({@link #store}, {@link #clock}), and the random limits and states they
 * draw.
 */
final class ScriptRig implements AutoCloseable {

    /** An expiry no test reaches, for the states a test writes. */
    static final long FAR_FUTURE = 1L << 52;
    private static final long[] PERIODS = {1, 3, 10, 1_000, 999_983, 1_000_000, 60_000_000,
        3_600_000_000L, 86_400_000_000L, 366 * 86_400_000_000L};
    private static final long[] PERMITS = {1, 2, 3, 7, 10, 100, 1_000, 1_000_000, 1_000_000_000};

    final VirtualClock clock = new VirtualClock(0);
    /** Final, so that {@link #close} closes it (a no-op when it never started) instead of hiding why it did not. */
    private final RedisFixture redis = RedisFixture.standalone();
    private RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;
    RedisCommands<byte[], byte[]> raw;
    Store store;

    /** Starts the server, connects, and builds the store on {@link #clock}. */
    void start() {
        redis.start();
        client = RedisClient.create(redis.uri());
        connection = client.connect(ByteArrayCodec.INSTANCE);
        raw = connection.sync();
        store = RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(10))
                .clockForTesting(clock).build();
    }

    @Override
    public void close() {
        // Null when start() failed part way: close what was opened, and let start()'s error be the one reported.
        if (store != null) {
            store.close();
        }
        if (connection != null) {
            connection.close();
        }
        if (client != null) {
            client.shutdown();
        }
        redis.close();
    }

    /** A client no try has used yet: a random identity. */
    static String newClient() {
        return "client-" + Long.toHexString(new Random().nextLong());
    }

    /** The client's key in Redis ({@link RedisKeys#key}), as bytes. */
    static byte[] keyOf(String identity) {
        return RedisKeys.key(identity).getBytes(StandardCharsets.UTF_8);
    }

    /** Makes the client's {@code key} hold {@code entries} as written at {@code now}, or no value when there are none. */
    void hold(byte[] key, Map<String, StoredValue.Entry> entries, long now) {
        if (entries.isEmpty()) {
            raw.del(key);
        } else {
            raw.set(key, StoredValue.encode(entries, now));
        }
    }

    /** A request's time: now and then within the epoch's first 10 seconds, else within 400 days from late 2025. */
    static long randomNow(Random random) {
        return random.nextInt(4) == 0 ? random.nextInt(10_000_000)
                : 1_764_000_000_000_000L + (long) (random.nextDouble() * 400 * 86_400_000_000L);
    }

    /**
     * A limit of {@code algorithm} with a period and permits often at the edges (one
     * microsecond, a leap year, one permit, a billion), and for a bucket a burst below or above
     * its permits.
     */
    static Limit randomLimit(Random random, Algorithm algorithm) {
        long period = random.nextBoolean() ? PERIODS[random.nextInt(PERIODS.length)]
                : 1 + (long) (random.nextDouble() * 100_000_000_000L);
        long permits = random.nextBoolean() ? PERMITS[random.nextInt(PERMITS.length)]
                : 1 + random.nextInt(1_000);
        if (algorithm == Algorithms.SLIDING_LOG) {
            permits = Math.min(permits, 10_000); // the most a sliding log accepts
        }
        Limit limit;
        try {
            limit = Limit.of(algorithm, permits, Duration.of(period, ChronoUnit.MICROS));
        } catch (IllegalArgumentException notEnforceable) {
            return randomLimit(random, algorithm); // a rate a bucket cannot enforce: draw another
        }
        if (algorithm == Algorithms.TOKEN_BUCKET || algorithm == Algorithms.GCRA) {
            long burst = random.nextBoolean() ? 1 + (long) (random.nextDouble() * permits * 2) : 1 + random.nextInt(20);
            try {
                return limit.withBurst(Math.min(burst, Limit.MAX_PERMITS));
            } catch (IllegalArgumentException bucketTooLarge) {
                return limit.withBurst(1);
            }
        }
        return limit;
    }

    /**
     * The state of {@code limit} after a few requests, of 1 to {@code costSpread} tokens each, up
     * to about {@code now}; sometimes malformed or after {@code now}.
     */
    static long[] history(Random random, Limit limit, long now, long costSpread) {
        int requests = random.nextInt(4) == 0 ? 0 : random.nextInt(15);
        long span = Math.min(3 * limit.periodMicros(), 100_000_000_000L);
        long t = Math.max(0, now - (long) (random.nextDouble() * span));
        long[] state = null;
        for (int i = 0; i < requests; i++) {
            long cost = 1 + (long) (random.nextDouble() * costSpread);
            Transition transition = limit.algorithm().transition(state, t, limit, cost);
            if (transition.allowed()) {
                state = transition.state();
            }
            t += (long) (random.nextDouble() * span / Math.max(1, requests)) * (random.nextInt(10) == 0 ? 0 : 1);
            if (random.nextInt(10) == 0) {
                // A clock that went back, or one ahead of this request's.
                t = Math.max(0, t + (long) ((random.nextDouble() - 0.3) * limit.periodMicros()));
            }
        }
        if (state != null && random.nextInt(20) == 0) {
            state = Arrays.copyOf(state, state.length + 1);
        } else if (state != null && random.nextInt(20) == 0) {
            state = state.clone();
            state[0] += 256; // another algorithm's tag, or none at all
        }
        return state;
    }
}
