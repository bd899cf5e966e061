package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReloadingPolicyConfigTest {

    @TempDir
    Path directory;

    final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    final Store store = LocalStore.builder().clockForTesting(clock).build();
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    final ReloadingPolicyConfig.Listener listener = listenerInto(events);

    /** A listener that puts each applied config and each rejection into {@code events}. */
    static ReloadingPolicyConfig.Listener listenerInto(BlockingQueue<Object> events) {
        return new ReloadingPolicyConfig.Listener() {
            @Override
            public void applied(PolicyConfig config) {
                events.add(config);
            }

            @Override
            public void rejected(PolicyConfigException reason) {
                events.add(reason);
            }
        };
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    static String policy(String perSecond, String perDay) {
        return """
                tiers:
                  - name: pro
                    limits:
                      - {name: per-second, algorithm: token-bucket, %s, period: 1s}
                      - {name: per-day, algorithm: fixed-window, %s, period: 1d}
                api-keys:
                  keys:
                    - {key: pro-key, tier: pro}
                """.formatted(perSecond, perDay);
    }

    /** Replaces the file as an editor or a deployment should: write beside it, rename over it. */
    Path write(String name, String content) throws Exception {
        Path file = directory.resolve(name);
        Path next = directory.resolve(name + ".next");
        Files.writeString(next, content);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    static ApiRequest request() {
        return ApiRequest.of("pro-key", "192.0.2.1", "GET", "/v1/x");
    }

    @Test
    void reloadSwapsInTheNewPolicy() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 100", "permits: 1000"));
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener)) {
            PolicyConfig first = config.current();
            assertThat(config.reload()).isSameAs(first);
            write("sluice.yaml", policy("permits: 50", "permits: 1000"));
            PolicyConfig second = config.reload();
            assertThat(second).isNotSameAs(first);
            assertThat(config.current()).isSameAs(second);
            assertThat(config.rejectedReloads()).isZero();
        }
    }

    @Test
    void aBadFileIsRejectedWithItsLineAndThePreviousPolicyStays() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 100", "permits: 1000"));
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener)) {
            PolicyConfig good = config.current();
            write("sluice.yaml", policy("permits: -100", "permits: 1000"));
            PolicyConfigException e = catchThrowableOfType(PolicyConfigException.class, config::reload);
            assertThat(e.getMessage()).isEqualTo(file + ":4: permits must not be negative: -100");
            assertThat(config.current()).isSameAs(good);
            assertThat(config.rejectedReloads()).isGreaterThanOrEqualTo(1);
            assertThat(nextEvent()).isInstanceOf(PolicyConfigException.class);
            // Asked again about the same file, it still says why.
            assertThat(catchThrowableOfType(PolicyConfigException.class, config::reload)).isSameAs(e);
            PolicyLimiter limiter = PolicyLimiter.builder().config(config).store(store).build();
            assertThat(limiter.decide(request()).decision().orElseThrow().remaining()).isEqualTo(99);
        }
    }

    @Test
    void aBadFileAtStartFails() throws Exception {
        Path file = write("sluice.yaml", "tiers: [");
        PolicyConfigException e = catchThrowableOfType(PolicyConfigException.class,
                () -> ReloadingPolicyConfig.watch(file, listener));
        assertThat(e.file()).isEqualTo(file.toString());
        assertThat(e.reason()).startsWith("YAML syntax: ");
    }

    @Test
    void aChangedFileIsPickedUpByTheWatch() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 100", "permits: 1000"));
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener)) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(config).store(store).build();
            assertThat(limiter.decide(request()).decision().orElseThrow().binding().burst()).isEqualTo(100);

            write("sluice.yaml", policy("permits: 50", "permits: 1000"));
            Object event = nextEvent();
            assertThat(event).isInstanceOf(PolicyConfig.class).isSameAs(config.current());
            assertThat(limiter.decide(request()).decision().orElseThrow().binding().burst()).isEqualTo(50);

            write("sluice.yaml", "tiers:\n  - name: pro\n    limitz: []\n");
            PolicyConfigException rejected = (PolicyConfigException) nextEvent();
            assertThat(rejected.problems()).extracting(PolicyProblem::line, PolicyProblem::reason).containsExactly(
                    tuple(2, "a tier needs the field 'limits'"),
                    tuple(3, "unknown field 'limitz' in a tier (expected one of [limits, name])"));
            assertThat(config.current()).isSameAs(event);
        }
    }

    @Test
    void anErrorInAListenerDoesNotStopTheWatch() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 100", "permits: 1000"));
        ReloadingPolicyConfig.Listener failingOnce = new ReloadingPolicyConfig.Listener() {
            private boolean failed;

            @Override
            public void applied(PolicyConfig config) {
                events.add(config);
                if (!failed) {
                    failed = true;
                    throw new StackOverflowError("a listener's own failure");
                }
            }
        };
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, failingOnce)) {
            write("sluice.yaml", policy("permits: 50", "permits: 1000"));
            assertThat(nextEvent()).isSameAs(config.current());

            write("sluice.yaml", policy("permits: 25", "permits: 1000"));
            Object second = nextEvent();
            assertThat(second).isSameAs(config.current());
            assertThat(config.watching()).isTrue();
        }
    }

    @Test
    void theWatchSaysWhenItIsClosed() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 100", "permits: 1000"));
        ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener);
        assertThat(config.watching()).isTrue();
        config.close();
        assertThat(config.watching()).isFalse();
    }

    @Test
    void aTokenBucketKeepsItsTokensCappedAtTheNewBurst() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 100", "permits: 1_000_000"));
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener)) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(config).store(store).build();
            for (int i = 0; i < 30; i++) {
                limiter.decide(request());
            }
            write("sluice.yaml", policy("permits: 50", "permits: 1_000_000"));
            config.reload();
            assertThat(remainingAfterOneMore(config.current(), "pro-key", "tier.pro.per-second")).isEqualTo(49);

            write("sluice.yaml", policy("permits: 200", "permits: 1_000_000"));
            config.reload();
            // Raising the limit does not fill the bucket: it refills at the new rate, 1 token per 5 ms.
            assertThat(remainingAfterOneMore(config.current(), "pro-key", "tier.pro.per-second")).isEqualTo(48);
            clock.advanceMicros(5_000);
            assertThat(remainingAfterOneMore(config.current(), "pro-key", "tier.pro.per-second")).isEqualTo(48);
            clock.advanceMicros(1_000_000);
            assertThat(remainingAfterOneMore(config.current(), "pro-key", "tier.pro.per-second")).isEqualTo(199);
        }
    }

    @Test
    void aWindowKeepsItsCount() throws Exception {
        Path file = write("sluice.yaml", policy("permits: 1000", "permits: 1000"));
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener)) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(config).store(store).build();
            for (int i = 0; i < 600; i++) {
                assertThat(limiter.decide(request()).allowed()).isTrue();
            }
            write("sluice.yaml", policy("permits: 1000", "permits: 500"));
            config.reload();
            PolicyDecision denied = limiter.decide(request());
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.decision().orElseThrow().binding().name()).isEqualTo("tier.pro.per-day");
            assertThat(denied.decision().orElseThrow().remaining()).isZero();

            write("sluice.yaml", policy("permits: 1000", "permits: 2000"));
            config.reload();
            assertThat(remainingAfterOneMore(config.current(), "pro-key", "tier.pro.per-day")).isEqualTo(2000 - 600 - 1);
        }
    }

    @Test
    void reloadsUnderConcurrentTrafficLoseNoDecisionAndNeverMixTwoPolicies() throws Exception {
        // Policy A: cost 1 and a marker limit of 500,000,000; policy B: cost 2 and 400,000,000.
        String a = trafficPolicy(1, 500_000_000);
        String b = trafficPolicy(2, 400_000_000);
        Path file = write("traffic.yaml", a);
        int workers = 4;
        int requestsEach = 4_000;
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try (ReloadingPolicyConfig config = ReloadingPolicyConfig.watch(file, listener)) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(config).store(store).build();
            List<Future<long[]>> results = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                results.add(pool.submit(() -> {
                    long admittedCost = 0;
                    long[] seen = new long[3];
                    for (int i = 0; i < requestsEach; i++) {
                        PolicyDecision decision = limiter.decide(ApiRequest.of("k", "192.0.2.1", "POST", "/work"));
                        assertThat(decision.allowed()).isTrue();
                        long marker = decision.limits().stream().filter(l -> l.name().endsWith(".marker"))
                                .mapToLong(Limit::permits).sum();
                        assertThat(marker).as("policy of cost " + decision.cost())
                                .isEqualTo(decision.cost() == 1 ? 500_000_000 : 400_000_000);
                        admittedCost += decision.cost();
                        seen[(int) decision.cost()]++;
                    }
                    return new long[] {admittedCost, seen[1], seen[2]};
                }));
            }
            int reloads = 0;
            while (!results.stream().allMatch(Future::isDone)) {
                write("traffic.yaml", reloads % 2 == 0 ? b : a);
                config.reload();
                reloads++;
            }
            long admittedCost = 0;
            long decisions = 0;
            for (Future<long[]> result : results) {
                long[] figures = result.get(1, TimeUnit.MINUTES);
                admittedCost += figures[0];
                decisions += figures[1] + figures[2];
            }
            assertThat(decisions).isEqualTo((long) workers * requestsEach);
            assertThat(reloads).isGreaterThan(1);
            assertThat(config.rejectedReloads()).isZero();
            // Every admitted token reached the store exactly once.
            assertThat(remainingAfterOneMore(config.current(), "k", "tier.t.per-day"))
                    .isEqualTo(1_000_000_000L - admittedCost - 1);
        } finally {
            pool.shutdownNow();
        }
    }

    private static String trafficPolicy(long cost, long markerPermits) {
        return """
                tiers:
                  - name: t
                    limits:
                      - {name: per-day, algorithm: fixed-window, permits: 1_000_000_000, period: 1d}
                api-keys:
                  keys:
                    - {key: k, tier: t}
                endpoints:
                  - name: work
                    method: POST
                    path: /work
                    cost: %d
                    per-key:
                      - {name: marker, algorithm: fixed-window, permits: %d, period: 1d}
                """.formatted(cost, markerPermits);
    }

    /** Charges one token of the named limit alone, straight in the store: what it has left after that. */
    private long remainingAfterOneMore(PolicyConfig config, String apiKey, String limitName) {
        Limit limit = Stream.concat(config.tiers().stream().flatMap(tier -> tier.limits().stream()),
                        config.endpoints().stream().flatMap(endpoint -> endpoint.perKey().stream()))
                .map(LimitRule::limit).filter(l -> l.name().equals(limitName)).findFirst().orElseThrow();
        Decision probe = store.tryAcquire(ClientKeys.forApiKey(apiKey), List.of(limit), 1).toCompletableFuture().join();
        assertThat(probe.allowed()).isTrue();
        return probe.remaining();
    }

    private Object nextEvent() throws InterruptedException {
        Object event = events.poll(60, TimeUnit.SECONDS);
        assertThat(event).as("a reload event within a minute").isNotNull();
        return event;
    }
}
