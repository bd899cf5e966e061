package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.Decisions;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.Transition;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * For random limits, states and requests, the Lua scripts and the Java reference
 * algorithms give the same decision and leave the same state: one limit of each algorithm,
 * and several limits of mixed algorithms in one request.
 */
class ScriptDifferentialIT {

    private static final long FAR_FUTURE = 1L << 52;
    private static final long[] PERIODS = {1, 3, 10, 1_000, 999_983, 1_000_000, 60_000_000,
        3_600_000_000L, 86_400_000_000L, 366 * 86_400_000_000L};
    private static final long[] PERMITS = {1, 2, 3, 7, 10, 100, 1_000, 1_000_000, 1_000_000_000};

    private static final RedisFixture redis = RedisFixture.standalone();
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> raw;
    private static final VirtualClock clock = new VirtualClock(0);
    private static Store store;

    @BeforeContainer
    static void start() {
        redis.start();
        client = RedisClient.create(redis.uri());
        connection = client.connect();
        raw = connection.sync();
        store = RedisStore.standalone(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(10))
                .clockForTesting(clock).build();
    }

    @AfterContainer
    static void stop() {
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

    @Property(tries = 1500)
    void oneLimitMatchesTheReference(@ForAll("oneLimit") Case request) {
        check(request);
    }

    @Property(tries = 500)
    void severalLimitsMatchTheReferenceAllOrNothing(@ForAll("severalLimits") Case request) {
        check(request);
    }

    @Provide
    Arbitrary<Case> oneLimit() {
        return Arbitraries.randomValue(random -> Case.random(random, 1));
    }

    @Provide
    Arbitrary<Case> severalLimits() {
        return Arbitraries.randomValue(random -> Case.random(random, 2 + random.nextInt(3)));
    }

    private static void check(Case request) {
        String identity = "client-" + Long.toHexString(new Random().nextLong());
        String hashTag = RedisKeys.hashTag(identity);
        List<Transition> expected = new ArrayList<>();
        for (int i = 0; i < request.limits.size(); i++) {
            Limit limit = request.limits.get(i);
            long[] state = request.states.get(i);
            String key = RedisKeys.key(hashTag, limit.name());
            if (state == null) {
                raw.del(key);
            } else {
                raw.set(key, FAR_FUTURE + "," + join(state));
            }
            expected.add(limit.algorithm().transition(state, request.now, limit, request.cost));
        }
        Decision reference = Decisions.combine(request.limits, expected);

        clock.setMicros(request.now);
        Decision decision = store.tryAcquire(identity, request.limits, request.cost).toCompletableFuture().join();

        assertThat(decision).as("decision").isEqualTo(reference);
        for (int i = 0; i < request.limits.size(); i++) {
            Limit limit = request.limits.get(i);
            String stored = raw.get(RedisKeys.key(hashTag, limit.name()));
            Transition transition = expected.get(i);
            if (!reference.allowed()) {
                long[] state = request.states.get(i);
                assertThat(stored).as("untouched state of " + limit.name())
                        .isEqualTo(state == null ? null : FAR_FUTURE + "," + join(state));
            } else if (transition.resetAfterMicros() > 0) {
                assertThat(stored).as("new state of " + limit.name())
                        .isEqualTo((request.now + transition.resetAfterMicros()) + "," + join(transition.state()));
            } else {
                assertThat(stored).as("state of " + limit.name() + ", fully reset").isNull();
            }
        }
    }

    private static String join(long[] state) {
        return Arrays.stream(state).mapToObj(Long::toString).collect(Collectors.joining(","));
    }

    /** Limits, the state each has in Redis before the request, the request's time and cost. */
    static final class Case {
        final List<Limit> limits = new ArrayList<>();
        final List<long[]> states = new ArrayList<>();
        long now;
        long cost;

        static Case random(Random random, int limitCount) {
            Case request = new Case();
            request.now = random.nextInt(4) == 0 ? random.nextInt(10_000_000)
                    : 1_764_000_000_000_000L + (long) (random.nextDouble() * 400 * 86_400_000_000L);
            long smallestCapacity = Long.MAX_VALUE;
            for (int i = 0; i < limitCount; i++) {
                Algorithm algorithm = Algorithms.all().get(random.nextInt(Algorithms.all().size()));
                Limit limit = randomLimit(random, algorithm).named("limit-" + i);
                request.limits.add(limit);
                smallestCapacity = Math.min(smallestCapacity, limit.burst());
                // The state was written under these parameters, or under others (a tier changed).
                Limit writtenUnder = random.nextInt(5) == 0 ? randomLimit(random, algorithm) : limit;
                request.states.add(history(random, writtenUnder, request.now));
            }
            int choice = random.nextInt(20);
            request.cost = choice == 0 ? Long.MAX_VALUE / 3
                    : choice == 1 ? smallestCapacity + 1
                    : 1 + (long) (random.nextDouble() * Math.min(smallestCapacity, 50));
            return request;
        }

        private static Limit randomLimit(Random random, Algorithm algorithm) {
            long period = random.nextBoolean() ? PERIODS[random.nextInt(PERIODS.length)]
                    : 1 + (long) (random.nextDouble() * 100_000_000_000L);
            long permits = random.nextBoolean() ? PERMITS[random.nextInt(PERMITS.length)]
                    : 1 + random.nextInt(1_000);
            if (algorithm == Algorithms.SLIDING_LOG) {
                permits = Math.min(permits, 10_000); // the most a sliding log accepts
            }
            Limit limit = Limit.of(algorithm, permits, Duration.of(period, ChronoUnit.MICROS));
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

        /** The state after a few requests up to about {@code now}; sometimes malformed or after {@code now}. */
        private static long[] history(Random random, Limit limit, long now) {
            int requests = random.nextInt(4) == 0 ? 0 : random.nextInt(15);
            long span = Math.min(3 * limit.periodMicros(), 100_000_000_000L);
            long t = Math.max(0, now - (long) (random.nextDouble() * span));
            long[] state = null;
            for (int i = 0; i < requests; i++) {
                long cost = 1 + (long) (random.nextDouble() * Math.max(1, Math.min(limit.burst(), 100) / 3));
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

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("now=" + now + " cost=" + cost);
            for (int i = 0; i < limits.size(); i++) {
                text.append("\n  ").append(limits.get(i)).append(" state=").append(Arrays.toString(states.get(i)));
            }
            return text.toString();
        }
    }
}
