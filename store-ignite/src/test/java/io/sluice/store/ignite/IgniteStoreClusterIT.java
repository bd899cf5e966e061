package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.api.StoreUnavailableException;
import io.sluice.testkit.AlgorithmOfYourOwn;
import io.sluice.testkit.StageThreads;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.processor.MutableEntry;
import org.apache.ignite.Ignite;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.cache.CachePeekMode;
import org.apache.ignite.configuration.CacheConfiguration;
import org.apache.ignite.lang.IgniteFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Three server nodes and a client node in one JVM; limiters on each of them (embedded in a
 * server, or on the client) share keys.
 */
class IgniteStoreClusterIT {

    private static final long START_MICROS = 1_700_000_000_123_456L;

    private static IgniteMembers members;
    private static List<Ignite> nodes;
    private static Ignite client;
    private static VirtualClock clock;
    private static List<Store> stores;

    @BeforeAll
    static void startCluster() {
        members = new IgniteMembers("cluster");
        nodes = List.of(members.startServer("a"), members.startServer("b"), members.startServer("c"));
        client = members.startClient("client");
        clock = new VirtualClock(START_MICROS);
        stores = new ArrayList<>();
        for (Ignite node : List.of(nodes.get(0), nodes.get(1), nodes.get(2), client)) {
            stores.add(IgniteStore.builder(node).clockForTesting(clock).timeout(Duration.ofSeconds(10)).build());
        }
    }

    @AfterAll
    static void stopCluster() {
        stores.forEach(Store::close);
        members.close();
    }

    static List<Algorithm> algorithms() {
        return Algorithms.all();
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void limitersOnEveryNodeHammeringOneKeyAdmitExactlyWhatTheAlgorithmAllows(Algorithm algorithm)
            throws Exception {
        Limit limit = Limit.of(algorithm, 200, Duration.ofHours(1));
        String key = "hammered-" + algorithm.name();
        int threadsPerStore = 2;
        int requestsPerThread = 120;
        AtomicInteger admitted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(stores.size() * threadsPerStore);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (Store store : stores) {
                for (int t = 0; t < threadsPerStore; t++) {
                    work.add(pool.submit(() -> {
                        for (int i = 0; i < requestsPerThread; i++) {
                            if (decide(store, key, List.of(limit), 1).allowed()) {
                                admitted.incrementAndGet();
                            }
                        }
                    }));
                }
            }
            for (Future<?> done : work) {
                done.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }

        KeyState reference = KeyState.empty();
        int allowedByAlgorithm = 0;
        for (int i = 0; i < stores.size() * threadsPerStore * requestsPerThread; i++) {
            if (reference.tryAcquire(List.of(limit), clock.nowMicros(), 1).allowed()) {
                allowedByAlgorithm++;
            }
        }
        assertThat(allowedByAlgorithm).isEqualTo(200);
        assertThat(admitted.get()).isEqualTo(allowedByAlgorithm);
    }

    @Test
    void everyNodeGivesTheReferenceDecisionsForSeveralLimitsOfOneKey() {
        List<Limit> limits = List.of(
                Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(15).named("burst"),
                Limit.of(Algorithms.SLIDING_WINDOW_COUNTER, 40, Duration.ofSeconds(10)).named("window"),
                Limit.of(Algorithms.GCRA, 100, Duration.ofMinutes(1)).named("minute"));
        Random random = new Random(4);
        KeyState reference = KeyState.empty();
        for (int step = 0; step < 400; step++) {
            clock.advanceMicros(random.nextInt(150_000));
            long cost = 1 + random.nextInt(3);
            Store store = stores.get(random.nextInt(stores.size()));
            Decision expected = reference.tryAcquire(limits, clock.nowMicros(), cost);
            assertThat(decide(store, "multi", limits, cost)).as("step %d", step).isEqualTo(expected);
        }
    }

    /**
     * A long sliding log is kept as a bounded head in the key's entry and its older entries in
     * chunks in {@code <cache>.chunks}, and decides as the whole log, from every node, across
     * several periods (chunks read back while they hold live entries); the backup holds the
     * primary's head.
     */
    @Test
    void aLongSlidingLogKeepsABoundedHeadAndDecidesAsTheWholeLog() {
        List<Limit> limits = List.of(Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofSeconds(10)).named("long"));
        String key = "long-log";
        Random random = new Random(10);
        KeyState reference = KeyState.empty();
        for (int step = 0; step < 4_000; step++) {
            clock.advanceMicros(random.nextInt(20_000));
            Store store = stores.get(random.nextInt(stores.size()));
            Decision expected = reference.tryAcquire(limits, clock.nowMicros(), 1);
            assertThat(decide(store, key, limits, 1)).as("step %d", step).isEqualTo(expected);
        }
        byte[] primary = peek(key, CachePeekMode.PRIMARY);
        // The whole log of 1,000 entries is 16,000 bytes and more.
        assertThat(KeyState.holdsHeads(primary)).isTrue();
        assertThat(primary.length).isLessThan(6_000);
        assertThat(peek(key, CachePeekMode.BACKUP)).isEqualTo(primary);
        assertThat(nodes.get(0).cache(IgniteStore.DEFAULT_CACHE_NAME + ".chunks").size()).isPositive();
    }

    /**
     * {@link IgniteStore#LOG_CHUNKS_PROPERTY} {@code false} when a store is built (a rolling
     * upgrade from server nodes that refuse chunks): that store keeps a long sliding log whole in
     * its key's entry, deciding as the whole log, where a store built without it keeps a head.
     */
    @Test
    void aStoreBuiltWithLogChunksOffKeepsLongSlidingLogsWhole() {
        List<Limit> limits = List.of(Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofHours(1)).named("upgrading"));
        Store whole;
        System.setProperty(IgniteStore.LOG_CHUNKS_PROPERTY, "false");
        try {
            whole = IgniteStore.builder(client).clockForTesting(clock).timeout(Duration.ofSeconds(10)).build();
        } finally {
            System.clearProperty(IgniteStore.LOG_CHUNKS_PROPERTY);
        }
        try {
            KeyState reference = KeyState.empty();
            for (int step = 0; step < 300; step++) {
                clock.advanceMicros(1_000);
                Decision expected = reference.tryAcquire(limits, clock.nowMicros(), 1);
                assertThat(decide(whole, "whole-log", limits, 1)).as("step %d", step).isEqualTo(expected);
                assertThat(decide(stores.get(3), "chunked-log", limits, 1)).as("step %d", step).isEqualTo(expected);
            }
        } finally {
            whole.close();
        }
        // 300 entries of 16 bytes: the whole log.
        assertThat(peek("whole-log", CachePeekMode.PRIMARY)).satisfies(
                state -> assertThat(KeyState.holdsHeads(state)).isFalse(),
                state -> assertThat(state.length).isGreaterThan(300 * 16));
        assertThat(KeyState.holdsHeads(peek("chunked-log", CachePeekMode.PRIMARY))).isTrue();
    }

    @Test
    void backupsHoldThePrimarysStateAndIdleKeysExpire() throws Exception {
        Store memberClockStore = IgniteStore.builder(nodes.get(0)).timeout(Duration.ofSeconds(10)).build();
        // A sliding log lives a whole period after a request, long enough to be seen first.
        Limit shortLived = Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofSeconds(2)).named("short");
        String key = "expiring";
        assertThat(decide(memberClockStore, key, List.of(shortLived), 1).allowed()).isTrue();
        byte[] primary = peek(key, CachePeekMode.PRIMARY);
        assertThat(primary).isNotNull();
        assertThat(peek(key, CachePeekMode.BACKUP)).isEqualTo(primary);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((peek(key, CachePeekMode.PRIMARY) != null || peek(key, CachePeekMode.BACKUP) != null)
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(peek(key, CachePeekMode.PRIMARY)).as("primary copy after expiry").isNull();
        assertThat(peek(key, CachePeekMode.BACKUP)).as("backup copy after expiry").isNull();
    }

    @Test
    void aKeyLivesAsLongAsItsLongestLivedLimit() throws Exception {
        Store memberClockStore = IgniteStore.builder(nodes.get(1)).timeout(Duration.ofSeconds(10)).build();
        Limit hourly = Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofHours(1)).named("hourly");
        Limit shortLived = Limit.of(Algorithms.FIXED_WINDOW, 5, Duration.ofMillis(200)).named("short");
        String key = "two-limiters";
        assertThat(decide(memberClockStore, key, List.of(hourly), 1).allowed()).isTrue();
        // Another limiter's short limit on the same key must not shorten the entry's life.
        assertThat(decide(memberClockStore, key, List.of(shortLived), 1).allowed()).isTrue();
        Thread.sleep(1_500);
        KeyState held = KeyState.decode(peek(key, CachePeekMode.PRIMARY));
        long nowMicros = System.currentTimeMillis() * 1_000;
        assertThat(held.holds(shortLived.name(), nowMicros)).as("the short limit's state").isFalse();
        assertThat(held.holds(hourly.name(), nowMicros)).as("the hourly limit's state").isTrue();
        assertThat(peek(key, CachePeekMode.BACKUP)).isNotNull();
    }

    @Test
    void aTimedOutDecisionIsAStoreFailureWithItsCause() throws Exception {
        String key = "held";
        // From a node that is not the key's primary: Ignite runs an update whose primary is the
        // calling node in the calling thread, so only a remote call can be left waiting.
        Store impatient = IgniteStore.builder(notPrimaryFor(key)).clockForTesting(clock)
                .timeout(Duration.ofMillis(200)).build();
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 5, Duration.ofSeconds(1));
        IgniteFuture<Void> holding = nodes.get(1).<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME)
                .invokeAsync(key, new EntryHoldingProcessor());
        try {
            assertThat(EntryHoldingProcessor.ENTERED.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Decision> decision = impatient.tryAcquire(key, List.of(limit), 1).toCompletableFuture();
            assertThatThrownBy(decision::join)
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(StoreUnavailableException.class)
                    .hasCauseInstanceOf(TimeoutException.class);
            RateLimiter limiter = RateLimiter.builder().limit(limit).store(impatient)
                    .failurePolicy(FailurePolicy.FAIL_CLOSED).build();
            assertThat(limiter.decide(key).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        } finally {
            EntryHoldingProcessor.RELEASE.countDown();
            holding.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aStoreWithNoReachableClusterFailsWithTheCauseNeverDenies() throws Exception {
        try (IgniteMembers lonely = new IgniteMembers("lonely")) {
            Ignite server = lonely.startServer("server");
            Ignite client = lonely.startClientWithoutReconnect("client");
            Store store = IgniteStore.builder(client).clockForTesting(clock).timeout(Duration.ofSeconds(1)).build();
            Limit limit = Limit.of(Algorithms.GCRA, 5, Duration.ofSeconds(1));
            assertThat(decide(store, "k", List.of(limit), 1).allowed()).isTrue();

            org.apache.ignite.Ignition.stop(server.name(), true);

            CompletableFuture<Decision> decision = store.tryAcquire("k", List.of(limit), 1).toCompletableFuture();
            assertThatThrownBy(decision::join)
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(StoreUnavailableException.class)
                    .hasCauseInstanceOf(Exception.class);
            RateLimiter limiter = RateLimiter.builder().limit(limit).store(store).build();
            assertThat(limiter.decide("k").reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        }
    }

    /**
     * What a caller chains to a stage ({@code decideAsync}'s path) runs on a thread of the store,
     * never on Ignite's that receives the answer, nor on the store's sending thread.
     */
    @Test
    void whatACallerChainsToAStageRunsOnAThreadOfTheStoreOnAServerAndAClient() {
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 1_000, Duration.ofSeconds(1));
        for (Ignite node : List.of(nodes.get(0), client)) {
            try (Store store = IgniteStore.builder(node).timeout(Duration.ofSeconds(10)).build()) {
                assertThat(StageThreads.of(store, "stage-" + node.name() + "-", limit, 20)).as("on %s", node.name())
                        .hasSize(20).allMatch(name -> name.startsWith("sluice-grid-") && !name.contains("send"));
            }
        }
    }

    @Test
    void aClosedStoreFailsAsAStoreFailure() {
        Store closed = IgniteStore.builder(nodes.get(2)).clockForTesting(clock).build();
        closed.close();
        Limit limit = Limit.of(Algorithms.FIXED_WINDOW, 5, Duration.ofSeconds(1));
        assertThatThrownBy(() -> decide(closed, "closed", List.of(limit), 1))
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
        // Closing a store leaves the node to the application.
        assertThat(decide(stores.get(2), "closed", List.of(limit), 1).allowed()).isTrue();
    }

    @Test
    void anAlgorithmTheNodesDoNotKnowIsRefusedWhenTheLimiterIsBuilt() {
        Algorithm custom = new AlgorithmOfYourOwn("leaky-bucket");
        Limit limit = Limit.of(custom, 5, Duration.ofSeconds(1));
        assertThat(stores.get(3).supports(custom)).isFalse();
        assertThatThrownBy(() -> RateLimiter.builder().limit(limit).store(stores.get(3)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaky-bucket");
        // Asked directly, the store refuses it the same way: never as a store failure.
        assertThatThrownBy(() -> decide(stores.get(3), "custom", List.of(limit), 1))
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaky-bucket");
    }

    @Test
    void theBuilderRejectsBadValuesAndUnusableCaches() {
        assertThatThrownBy(() -> IgniteStore.builder(nodes.get(0)).backups(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> IgniteStore.builder(nodes.get(0)).timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0S");
        assertThatThrownBy(() -> IgniteStore.builder(nodes.get(0)).cacheName(""))
                .isInstanceOf(IllegalArgumentException.class);
        nodes.get(0).getOrCreateCache(new CacheConfiguration<String, byte[]>("transactional")
                .setAtomicityMode(CacheAtomicityMode.TRANSACTIONAL));
        assertThatThrownBy(() -> IgniteStore.builder(nodes.get(0)).cacheName("transactional").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TRANSACTIONAL");
    }

    static Ignite notPrimaryFor(String key) {
        return nodes.stream()
                .filter(node -> !node.affinity(IgniteStore.DEFAULT_CACHE_NAME).isPrimary(node.cluster().localNode(), key))
                .findFirst().orElseThrow();
    }

    private static byte[] peek(String key, CachePeekMode mode) {
        for (Ignite node : nodes) {
            byte[] value = node.<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME).localPeek(key, mode);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    static Decision decide(Store store, String key, List<Limit> limits, long cost) {
        return store.tryAcquire(key, limits, cost).toCompletableFuture().join();
    }

    /** Holds a key's entry (Ignite locks it while a processor runs) until released. */
    static final class EntryHoldingProcessor implements CacheEntryProcessor<String, byte[], Void> {

        private static final long serialVersionUID = 1L;
        static final CountDownLatch ENTERED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        @Override
        public Void process(MutableEntry<String, byte[]> entry, Object... arguments) {
            ENTERED.countDown();
            try {
                RELEASE.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }
}
