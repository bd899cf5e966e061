package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A real outage: four limiter instances decide on one key of a real redis-server, which is
 * killed with SIGKILL mid-run and restarted on the same port two seconds later, under each
 * failure policy. Timeouts, the breaker and the fallback are the defaults.
 */
class StoreOutageRedisIT {

    @RegisterExtension
    static final RedisFixture REDIS = RedisFixture.standalone();

    private static final int INSTANCES = 4;
    /** The store's own command timeout: long, so that the guard's (the default, 100 ms) is the one that must hold. */
    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The longest a decision may take here: half the store's own timeout, so a decision that waited
     * for it fails this, while one the guard ended is not failed by threads waiting seconds for a
     * core on a loaded 2-core build machine (five times the guard's timeout once measured 557 ms
     * there). The figures printed are the measurement; StoreGuardTest checks that the guard cuts off
     * a store that does not answer at its timeout.
     */
    private static final long SCHEDULING_ALLOWANCE_MILLIS = STORE_TIMEOUT.toMillis() / 2;
    private static final Duration OUTAGE = Duration.ofSeconds(2);
    /** A day's worth of permits spread over a minute: the refill during the outage is small and known. */
    private static final Limit LIMIT = Limit.of(Algorithms.TOKEN_BUCKET, 400, Duration.ofMinutes(1)).named("minute");

    private ClientResources resources;
    private RedisClient client;
    private Store redis;

    @BeforeEach
    void connect() {
        REDIS.command(0, "FLUSHALL");
        // The advice of docs/operations.md for a client passed in: reconnect at a constant short delay.
        resources = ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(100))).build();
        client = RedisClient.create(resources, RedisURI.create(REDIS.uri()));
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        redis = RedisStore.standalone(client).commandTimeout(STORE_TIMEOUT).build();
    }

    @AfterEach
    void disconnect() {
        redis.close();
        client.shutdown();
        resources.shutdown();
    }

    private record Sample(int instance, long startNanos, long endNanos, Decision decision) {
    }

    @ParameterizedTest
    @EnumSource(FailurePolicy.class)
    void anOutageIsAnsweredByTheFailurePolicyAndTheStoreIsUsedAgainSoonAfterItsReturn(FailurePolicy policy)
            throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreGuard guard = StoreGuard.custom().instances(INSTANCES).meterRegistry(registry).build();
        List<Sample> samples = new CopyOnWriteArrayList<>();
        List<Thread> load = startLoad(policy, guard, samples);
        // When the server was killed, when its restart began, and when it answered again.
        long[] outage = new long[3];
        Thread.sleep(1_000);
        killRedis();
        outage[0] = System.nanoTime();
        Thread.sleep(OUTAGE.toMillis());
        outage[1] = System.nanoTime();
        REDIS.restart();
        outage[2] = System.nanoTime();
        Thread.sleep(2_000);
        stop(load);

        // Denials the store gave just before the kill are repeated by the block cache until their
        // retry-after (correctly: the store would deny them too); every other decision follows the policy.
        List<Sample> during = samples.stream()
                .filter(s -> s.startNanos() > outage[0] && s.endNanos() < outage[1])
                .filter(s -> s.decision().reason() != Decision.Reason.LIMIT_EXCEEDED).toList();
        assertThat(during).isNotEmpty();
        long admitted = during.stream().filter(s -> s.decision().allowed()).count();
        switch (policy) {
            case FAIL_CLOSED -> assertThat(during).allMatch(s -> !s.decision().allowed()
                    && s.decision().reason() == Decision.Reason.STORE_UNAVAILABLE);
            case FAIL_OPEN -> assertThat(during).allMatch(s -> s.decision().allowed()
                    && s.decision().reason() == Decision.Reason.STORE_UNAVAILABLE);
            case FALLBACK -> {
                // Each instance's share: a quarter of the burst, plus a quarter of the refill over the outage.
                long outageMicros = (outage[1] - outage[0]) / 1_000;
                long refill = LIMIT.permits() * outageMicros / LIMIT.periodMicros() / INSTANCES + 1;
                for (int i = 0; i < INSTANCES; i++) {
                    int instance = i;
                    long admittedHere = during.stream()
                            .filter(s -> s.instance() == instance && s.decision().allowed()).count();
                    assertThat(admittedHere).isLessThanOrEqualTo(LIMIT.burst() / INSTANCES + refill);
                }
                assertThat(during).allMatch(s -> s.decision().reason() == Decision.Reason.FALLBACK);
            }
            default -> throw new AssertionError(policy);
        }

        // Decisions from the kill on: before it, the first decisions of a cold JVM on a loaded machine.
        Sample slowest = samples.stream().filter(s -> s.startNanos() > outage[0])
                .max(Comparator.comparingLong(s -> s.endNanos() - s.startNanos())).orElseThrow();
        long slowestMillis = TimeUnit.NANOSECONDS.toMillis(slowest.endNanos() - slowest.startNanos());
        Sample firstBack = samples.stream().filter(s -> s.startNanos() > outage[2])
                .filter(s -> s.decision().reason() == Decision.Reason.WITHIN_LIMIT
                        || s.decision().reason() == Decision.Reason.LIMIT_EXCEEDED)
                .min(Comparator.comparingLong(Sample::endNanos)).orElseThrow();
        long backAfterMillis = TimeUnit.NANOSECONDS.toMillis(firstBack.endNanos() - outage[2]);
        System.out.printf("%s: %d decisions, %d during the outage (%d admitted), slowest %d ms, store used again "
                + "%d ms after its return%n", policy, samples.size(), during.size(), admitted, slowestMillis,
                backAfterMillis);
        assertThat(slowestMillis).isLessThan(SCHEDULING_ALLOWANCE_MILLIS);
        assertThat(backAfterMillis).isLessThan(1_000);
        assertThat(registry.get(StoreGuard.STORE_ERRORS).tags("cause", "failure").counter().count()).isPositive();
    }

    @Test
    void aServerThatStopsAnsweringCostsADecisionAtMostTheTimeoutAndTheFallbackBoundsWhatIsAdmitted()
            throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StoreGuard guard = StoreGuard.custom().instances(INSTANCES).meterRegistry(registry).build();
        List<Sample> samples = new CopyOnWriteArrayList<>();
        long begin = System.nanoTime();
        List<Thread> load = startLoad(FailurePolicy.FALLBACK, guard, samples);
        Thread.sleep(1_000);
        // SIGSTOP: the connection stays open and commands queue unanswered, as behind a partition.
        signalRedis("STOP");
        long stopped = System.nanoTime();
        Thread.sleep(OUTAGE.toMillis());
        signalRedis("CONT");
        long resumed = System.nanoTime();
        Thread.sleep(2_000);
        stop(load);
        long end = System.nanoTime();

        long slowestMillis = TimeUnit.NANOSECONDS.toMillis(samples.stream().filter(s -> s.startNanos() > stopped)
                .mapToLong(s -> s.endNanos() - s.startNanos()).max().orElseThrow());
        long timedOut = (long) registry.get(StoreGuard.STORE_ERRORS).tags("cause", "timeout").counter().count();
        long admitted = samples.stream().filter(s -> s.decision().allowed()).count();
        long fromStore = samples.stream().filter(s -> s.decision().allowed()
                && s.decision().reason() == Decision.Reason.WITHIN_LIMIT).count();
        // What the store may admit over the run, and what each instance's share may admit while it does not answer.
        long runMicros = (end - begin) / 1_000;
        long storeBound = LIMIT.burst() + LIMIT.permits() * runMicros / LIMIT.periodMicros() + 1;
        // The fallback decides from the first timeout until the breakers let the store decide again.
        List<Sample> fallbacks = samples.stream().filter(s -> s.decision().reason() == Decision.Reason.FALLBACK)
                .toList();
        long fallbackMicros = (fallbacks.stream().mapToLong(Sample::endNanos).max().orElse(0)
                - fallbacks.stream().mapToLong(Sample::startNanos).min().orElse(0)) / 1_000;
        long fallbackBound = INSTANCES * (LIMIT.burst() / INSTANCES
                + LIMIT.permits() * fallbackMicros / LIMIT.periodMicros() / INSTANCES + 1);
        System.out.printf("SIGSTOP %d ms: %d decisions, %d store calls timed out, slowest after the stop %d ms, "
                + "admitted %d (%d by the store, bound %d; %d by the fallback over %d ms, bound %d)%n",
                TimeUnit.NANOSECONDS.toMillis(resumed - stopped), samples.size(), timedOut, slowestMillis, admitted,
                fromStore, storeBound, admitted - fromStore, fallbackMicros / 1_000, fallbackBound);
        assertThat(timedOut).isPositive();
        assertThat(slowestMillis).isLessThan(SCHEDULING_ALLOWANCE_MILLIS);
        assertThat(fromStore).isLessThanOrEqualTo(storeBound);
        assertThat(admitted - fromStore).isLessThanOrEqualTo(fallbackBound);
    }

    private List<Thread> startLoad(FailurePolicy policy, StoreGuard guard, List<Sample> samples) {
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            int instance = i;
            RateLimiter limiter = RateLimiter.builder().limit(LIMIT.withFailurePolicy(policy)).store(redis)
                    .layer(guard).build();
            Thread thread = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    long start = System.nanoTime();
                    Decision decision = limiter.decide("hot");
                    samples.add(new Sample(instance, start, System.nanoTime(), decision));
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }, "instance-" + i);
            thread.start();
            load.add(thread);
        }
        return load;
    }

    private static void stop(List<Thread> load) throws InterruptedException {
        for (Thread thread : load) {
            thread.interrupt();
            thread.join();
        }
    }

    /** Sends a signal (STOP, CONT) to the fixture's redis-server. */
    private static void signalRedis(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(REDIS.pids().get(0))).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -" + signal).isZero();
    }

    /** SIGKILL to the fixture's redis-server. */
    private static void killRedis() {
        REDIS.kill();
    }
}
