package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.Decisions;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For random limits, states and requests, the Lua scripts and the Java reference
 * algorithms give the same decision and leave the same state: one limit of each algorithm,
 * and several limits of mixed algorithms in one request (in one key, format 2).
 */
class ScriptDifferentialIT extends ScriptDifferential {

    /** The sliding log's format 1 (costs), as the script reads it; format 2 (running totals) is this plus 1. */
    private static final long SLIDING_LOG_TAG = 2 * 256 + 1;
    /** The sliding log's part of the client's value when its entries are in a list (sliding-log.lua). */
    private static final long LOG_TAG = 2 * 256 + 129;

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
        String identity = ScriptRig.newClient();
        byte[] key = ScriptRig.keyOf(identity);
        Map<String, StoredValue.Entry> before = new LinkedHashMap<>();
        List<Transition> expected = new ArrayList<>();
        for (int i = 0; i < request.limits.size(); i++) {
            Limit limit = request.limits.get(i);
            long[] state = request.states.get(i);
            byte[] logKey = logKey(identity, limit);
            rig.raw.del(logKey);
            long[] scriptState = limit.algorithm() == Algorithms.SLIDING_LOG ? costs(state) : state;
            if (scriptState != null && limit.algorithm() == Algorithms.SLIDING_LOG && request.listedLogs.get(i)
                    && scriptState[0] == SLIDING_LOG_TAG && scriptState.length % 2 == 1) {
                before.put(limit.name(), new StoredValue.Entry(ScriptRig.FAR_FUTURE, listLog(logKey, scriptState)));
            } else if (scriptState != null) {
                // A sliding log of costs is how key schema 1 held it: moved into a list when admitted.
                before.put(limit.name(), new StoredValue.Entry(ScriptRig.FAR_FUTURE, scriptState));
            }
            expected.add(limit.algorithm().transition(state, request.now, limit, request.cost));
        }
        rig.hold(key, before, request.now);
        Decision reference = Decisions.combine(request.limits, expected);

        rig.clock.setMicros(request.now);
        Decision decision = rig.store.tryAcquire(identity, request.limits, request.cost).toCompletableFuture().join();

        assertThat(decision).as("decision").isEqualTo(reference);
        byte[] value = rig.raw.get(key);
        if (!reference.allowed()) {
            assertThat(value).as("untouched states").isEqualTo(before.isEmpty() ? null : StoredValue.encode(before, request.now));
            return;
        }
        Map<String, StoredValue.Entry> after = value == null ? Map.of() : StoredValue.decode(value);
        for (int i = 0; i < request.limits.size(); i++) {
            Limit limit = request.limits.get(i);
            Transition transition = expected.get(i);
            StoredValue.Entry entry = after.get(limit.name());
            if (transition.resetAfterMicros() > 0) {
                assertThat(entry).as("new state of " + limit.name()).isNotNull();
                assertThat(entry.expiresAt()).as("expiry of " + limit.name())
                        .isEqualTo(request.now + transition.resetAfterMicros());
                // The sliding log's entries, (time, cost) in the script's list, are compared with the
                // reference's running totals turned into costs: the same log in another layout.
                boolean log = limit.algorithm() == Algorithms.SLIDING_LOG;
                long[] state = log ? unlistLog(logKey(identity, limit), entry.state()) : entry.state();
                assertThat(state).as("new state of " + limit.name())
                        .isEqualTo(log ? costs(transition.state()) : transition.state());
            } else {
                assertThat(entry).as("state of " + limit.name() + ", fully reset").isNull();
            }
        }
    }

    /**
     * A sliding log of the reference's format 2 ({@code [tag, base, t1, s1, ...]}, running totals)
     * in format 1 ({@code [tag, t1, c1, ...]}, costs), the form the script reads and lists; any
     * other state as it is (a malformed one stays malformed for both).
     */
    private static long[] costs(long[] state) {
        if (state == null || state.length < 2 || state[0] != SLIDING_LOG_TAG + 1 || state.length % 2 != 0) {
            return state;
        }
        long[] costs = new long[state.length - 1];
        costs[0] = SLIDING_LOG_TAG;
        long total = state[1];
        for (int i = 2; i + 1 < state.length; i += 2) {
            costs[i - 1] = state[i];
            costs[i] = state[i + 1] - total;
            total = state[i + 1];
        }
        return costs;
    }

    private static byte[] logKey(String identity, Limit limit) {
        return RedisKeys.logKey(RedisKeys.key(identity), limit.name()).getBytes(StandardCharsets.UTF_8);
    }

    /** Puts a reference sliding log's entries into its list; returns the client value's part: {tag, used, last}. */
    private static long[] listLog(byte[] logKey, long[] state) {
        long used = 0;
        for (int i = 1; i + 1 < state.length; i += 2) {
            rig.raw.rpush(logKey, (state[i] + ":" + state[i + 1]).getBytes(StandardCharsets.UTF_8));
            used += state[i + 1];
        }
        return new long[] {LOG_TAG, used, state.length > 1 ? state[state.length - 2] : 0};
    }

    /** The reference's sliding-log state of what the script keeps: checks the value's part and the list agree. */
    private static long[] unlistLog(byte[] logKey, long[] stored) {
        List<byte[]> entries = rig.raw.lrange(logKey, 0, -1);
        long[] state = new long[1 + 2 * entries.size()];
        state[0] = SLIDING_LOG_TAG;
        long used = 0;
        for (int i = 0; i < entries.size(); i++) {
            String[] parts = new String(entries.get(i), StandardCharsets.UTF_8).split(":");
            state[1 + 2 * i] = Long.parseLong(parts[0]);
            state[2 + 2 * i] = Long.parseLong(parts[1]);
            used += state[2 + 2 * i];
        }
        assertThat(stored).as("the client value's part of a sliding log")
                .containsExactly(LOG_TAG, used, state[state.length - 2]);
        assertThat(rig.raw.pttl(logKey)).as("the log's time to live").isPositive();
        return state;
    }

    /** Limits, the state each has in Redis before the request, the request's time and cost. */
    static final class Case {
        final List<Limit> limits = new ArrayList<>();
        final List<long[]> states = new ArrayList<>();
        /** Whether a sliding log's state is in a list (else in the reference's form, as key schema 1 held it). */
        final List<Boolean> listedLogs = new ArrayList<>();
        long now;
        long cost;

        static Case random(Random random, int limitCount) {
            Case request = new Case();
            request.now = ScriptRig.randomNow(random);
            long smallestCapacity = Long.MAX_VALUE;
            for (int i = 0; i < limitCount; i++) {
                Algorithm algorithm = Algorithms.all().get(random.nextInt(Algorithms.all().size()));
                Limit limit = ScriptRig.randomLimit(random, algorithm).named("limit-" + i);
                request.limits.add(limit);
                smallestCapacity = Math.min(smallestCapacity, limit.burst());
                // The state was written under these parameters, or under others (a tier changed).
                Limit writtenUnder = random.nextInt(5) == 0 ? ScriptRig.randomLimit(random, algorithm) : limit;
                request.states.add(ScriptRig.history(random, writtenUnder, request.now,
                        Math.max(1, Math.min(writtenUnder.burst(), 100) / 3)));
                request.listedLogs.add(random.nextInt(4) != 0);
            }
            int choice = random.nextInt(20);
            request.cost = choice == 0 ? Long.MAX_VALUE / 3
                    : choice == 1 ? smallestCapacity + 1
                    : 1 + (long) (random.nextDouble() * Math.min(smallestCapacity, 50));
            return request;
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
