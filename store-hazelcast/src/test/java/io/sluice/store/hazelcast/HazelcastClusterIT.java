package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import io.sluice.testkit.AlgorithmOfYourOwn;
import io.sluice.testkit.StageThreads;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Three real members whose clocks are 20 minutes apart, and a client, started once: limiters
 * on every one of them share each key exactly, decide with the owner's clock, and the
 * backups hold the owner's bytes.
 */
class HazelcastClusterIT {

    private static final long SKEW_MICROS = Duration.ofMinutes(20).toNanos() / 1_000;
    private static final long FROZEN_MICROS = 1_700_000_000_000_000L;
    private static final Duration TEST_TIMEOUT = Duration.ofSeconds(30);

    private static TestCluster cluster;
    private static List<HazelcastInstance> members;
    private static HazelcastInstance client;

    @BeforeAll
    static void startCluster() {
        cluster = new TestCluster();
        TimeSource system = TimeSource.system();
        for (long skew : new long[] {-SKEW_MICROS, 0, SKEW_MICROS}) {
            TimeSource clock = () -> system.nowMicros() + skew;
            cluster.startMember(clock, config -> config
                    .addMapConfig(new MapConfig("backups-*").setBackupCount(1).setReadBackupData(true))
                    .addMapConfig(new MapConfig("object-backups").setBackupCount(1).setReadBackupData(true)
                            .setInMemoryFormat(InMemoryFormat.OBJECT)));
        }
        members = cluster.members();
        client = cluster.startClient();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    static Stream<Algorithm> algorithms() {
        return Algorithms.all().stream();
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void limitersOnEveryMemberAndAClientAdmitExactlyTheLimitOfOneKey(Algorithm algorithm) throws Exception {
        TimeSource frozen = () -> FROZEN_MICROS;
        Limit limit = Limit.of(algorithm, 200, Duration.ofMinutes(1));
        List<RateLimiter> limiters = limitersEverywhere("hammer", frozen, List.of(limit));

        List<Decision> decisions = hammer(limiters, "hammer-" + algorithm.name(), 800);

        assertThat(decisions).noneMatch(d -> d.reason() == Decision.Reason.STORE_UNAVAILABLE);
        assertThat(decisions).filteredOn(Decision::allowed).hasSize(200);
    }

    @Test
    void threadsOfOneLimiterOnOneKeyAdmitExactlyTheLimitOnTheOwnersClock() throws Exception {
        // One store: its decisions on the key coalesce while one is out, and go as batches.
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 200, Duration.ofDays(1));
        for (HazelcastInstance instance : List.of(members.get(0), client)) {
            RateLimiter limiter = RateLimiter.builder().store(store(instance, "coalesced", null)).limit(limit).build();
            String key = "coalesced-" + (instance == client ? "client" : "member");

            List<Decision> decisions = hammer(List.of(limiter), key, 800);

            assertThat(decisions).noneMatch(d -> d.reason() == Decision.Reason.STORE_UNAVAILABLE);
            assertThat(decisions).filteredOn(Decision::allowed).hasSize(200);
        }
    }

    @Test
    void severalLimitsOfOneKeyAreChargedTogetherAcrossMembers() throws Exception {
        TimeSource frozen = () -> FROZEN_MICROS;
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).withBurst(300);
        Limit window = Limit.of(Algorithms.FIXED_WINDOW, 200, Duration.ofMinutes(1));
        List<RateLimiter> limiters = limitersEverywhere("multi", frozen, List.of(bucket, window));

        List<Decision> decisions = hammer(limiters, "multi-limit", 600);

        assertThat(decisions).filteredOn(Decision::allowed).hasSize(200);
        // The window denied the rest, so the bucket was charged only for what was admitted.
        Decision next = limiters.get(0).decide("multi-limit");
        assertThat(next.binding()).isEqualTo(window);
        Store store = store(members.get(0), "multi", frozen);
        Decision bucketOnly = store.tryAcquire("multi-limit", List.of(bucket), 1).toCompletableFuture().join();
        assertThat(bucketOnly.remaining()).isEqualTo(99);
    }

    @Test
    void skewedMembersGiveOneAnswerPerKeyOnTheOwnersClock() throws Exception {
        long day = Duration.ofDays(1).toNanos() / 1_000;
        Limit limit = Limit.of(Algorithms.FIXED_WINDOW, 100, Duration.ofDays(1));
        List<RateLimiter> limiters = limitersEverywhere("skew", null, List.of(limit));
        for (HazelcastInstance owner : members) {
            String key = cluster.keyOwnedBy(owner, "skew");
            long before = MemberClock.nowMicros(owner);
            List<Decision> decisions = hammer(limiters, key, 300);
            long after = MemberClock.nowMicros(owner);

            // (A run that crosses midnight on the owner's clock sees two windows: rare, not checked.)
            if (before / day == after / day) {
                assertThat(decisions).filteredOn(Decision::allowed).hasSize(100);
                // Every answer names the end of the owner's window, whichever member asked;
                // another member's clock would put it 20 minutes off.
                long latestEnd = day - before % day;
                long earliestEnd = day - after % day;
                assertThat(decisions).allSatisfy(d -> assertThat(d.resetAfter().toNanos() / 1_000)
                        .isBetween(earliestEnd, latestEnd));
            }
        }
    }

    static Stream<Limit> backedUpLimits() {
        // A token bucket's backups get the owner's bytes; a sliding log's, soon larger than the
        // request, replay the request at the owner's time.
        return Stream.of(Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(20),
                Limit.of(Algorithms.SLIDING_LOG, 100, Duration.ofMinutes(1)));
    }

    @ParameterizedTest
    @MethodSource("backedUpLimits")
    void backupsHoldTheBytesTheOwnerComputedNotTheirOwn(Limit limit) {
        String key = "backed-up";
        String map = "backups-" + limit.algorithm().name();
        HazelcastInstance owner = cluster.owner(key);
        HazelcastInstance caller = members.stream().filter(m -> m != owner).findFirst().orElseThrow();
        Store store = store(caller, map, null);

        for (int i = 0; i < 20; i++) {
            assertThat(store.tryAcquire(key, List.of(limit), 1).toCompletableFuture().join().allowed()).isTrue();
            HazelcastInstance backup = backupHolder(owner, map);
            byte[] owners = owner.<String, byte[]>getMap(map).get(key);
            byte[] backups = backup.<String, byte[]>getMap(map).get(key);
            assertThat(backups).isEqualTo(owners);
        }
    }

    /**
     * A long sliding log in a {@code BINARY} map (the default) is kept as a bounded head in the
     * key's entry and its older entries in chunks in {@code <map>.chunks}: limiters on every
     * member and a client, none of them the owner but one, admit exactly its limit, and the
     * backup, replaying each request with its chunks and acknowledgements, holds the owner's head.
     */
    @Test
    void aLongSlidingLogInABinaryMapKeepsABoundedHeadThatItsBackupHoldsToo() throws Exception {
        String key = cluster.keyOwnedBy(members.get(1), "chunked-log");
        String map = "backups-chunked";
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofHours(1));
        List<RateLimiter> limiters = limitersEverywhere(map, null, List.of(log));

        List<Decision> decisions = hammer(limiters, key, 3_000);

        assertThat(decisions).noneMatch(d -> d.reason() == Decision.Reason.STORE_UNAVAILABLE);
        assertThat(decisions).filteredOn(Decision::allowed).hasSize(1_000);
        HazelcastInstance owner = cluster.owner(key);
        byte[] owners = owner.<String, byte[]>getMap(map).get(key);
        // The whole log of 1,000 entries is 16,000 bytes and more.
        assertThat(KeyState.holdsHeads(owners)).isTrue();
        assertThat(owners.length).isLessThan(6_000);
        assertThat(owner.getMap(map + ".chunks").size()).isPositive();
        assertThat(backupHolder(owner, map).<String, byte[]>getMap(map).get(key)).isEqualTo(owners);
    }

    /**
     * A map in {@code OBJECT} format hands the processors the stored value itself
     * (docs/stores/hazelcast.md): a sliding log there, kept in place once longer than its
     * replay, admits exactly its limit from every member and a client (lone decisions and
     * batches), and the backup, replaying, holds the owner's state.
     */
    @Test
    void aSlidingLogInAnObjectFormatMapAdmitsItsLimitAndItsBackupHoldsTheOwnersState() throws Exception {
        String key = cluster.keyOwnedBy(members.get(1), "object-log");
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 200, Duration.ofHours(1));
        List<RateLimiter> limiters = limitersEverywhere("object-backups", null, List.of(log));

        List<Decision> decisions = hammer(limiters, key, 800);

        assertThat(decisions).noneMatch(d -> d.reason() == Decision.Reason.STORE_UNAVAILABLE);
        assertThat(decisions).filteredOn(Decision::allowed).hasSize(200);
        HazelcastInstance owner = cluster.owner(key);
        Object owners = owner.getMap("object-backups").get(key);
        Object backups = backupHolder(owner, "object-backups").getMap("object-backups").get(key);
        assertThat(owners).isInstanceOf(InPlaceState.class);
        assertThat(ApplyLimitsTest.bytesOf(backups)).isEqualTo(ApplyLimitsTest.bytesOf(owners));
    }

    @Test
    void anEntryLivesUntilItsLimitsAreFullyResetThenGoes() throws Exception {
        String key = "idle";
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofSeconds(3));
        Store store = store(client, "expiry", null);

        Decision decision = store.tryAcquire(key, List.of(limit), 1).toCompletableFuture().join();

        // Full again after 1.5 s: rounded up to 2 s, plus Hazelcast's second of truncation.
        assertThat(decision.resetAfter()).isEqualTo(Duration.ofMillis(1_500));
        IMap<String, byte[]> map = members.get(0).getMap("expiry");
        assertThat(map.getEntryView(key).getTtl()).isEqualTo(3_000);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (map.containsKey(key) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(map.containsKey(key)).isFalse();
    }

    @Test
    void anEntryLivesAsLongAsItsLongestLivedLimit() {
        String key = "two-lifetimes";
        Limit shortLived = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
        Limit longLived = Limit.of(Algorithms.GCRA, 1, Duration.ofMinutes(1));
        Store store = store(members.get(1), "lifetimes", null);

        Decision decision = store.tryAcquire(key, List.of(shortLived, longLived), 1).toCompletableFuture().join();

        // Full again after 100 ms and after exactly 60 s: the entry lives 60 s, plus a second.
        assertThat(decision.binding()).isEqualTo(longLived);
        assertThat(decision.resetAfter()).isEqualTo(Duration.ofMinutes(1));
        IMap<String, byte[]> map = members.get(2).getMap("lifetimes");
        assertThat(map.getEntryView(key).getTtl()).isEqualTo(61_000);
        // A denied request writes nothing, so it does not extend the entry's life.
        assertThat(store.tryAcquire(key, List.of(shortLived, longLived), 1).toCompletableFuture().join().allowed())
                .isFalse();
        assertThat(map.getEntryView(key).getTtl()).isEqualTo(61_000);
    }

    @Test
    void aKeyThatDoesNotAnswerInTimeIsAStoreFailureNotADenial() {
        String key = "locked";
        Limit limit = Limit.of(Algorithms.GCRA, 10, Duration.ofSeconds(1));
        IMap<String, byte[]> map = members.get(0).getMap("locked");
        Store store = HazelcastStore.builder(members.get(1)).mapName("locked")
                .timeout(Duration.ofMillis(200)).build();
        map.lock(key);
        try {
            assertThatThrownBy(() -> store.tryAcquire(key, List.of(limit), 1).toCompletableFuture().join())
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("did not answer within PT0.2S")
                    .cause().isInstanceOf(TimeoutException.class);
            Decision closed = RateLimiter.builder().limit(limit).store(store).build().decide(key);
            assertThat(closed.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(closed.allowed()).isFalse();
            Decision open = RateLimiter.builder().limit(limit).store(store)
                    .failurePolicy(FailurePolicy.FAIL_OPEN).build().decide(key);
            assertThat(open.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(open.allowed()).isTrue();
        } finally {
            map.unlock(key);
        }
    }

    @Test
    void noReachableClusterIsAStoreFailureWithTheCause() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ClientConfig config = new ClientConfig();
        config.setClusterName("nobody-" + closedPort);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().addAddress("127.0.0.1:" + closedPort);
        config.getConnectionStrategyConfig().setAsyncStart(true)
                .setReconnectMode(ClientConnectionStrategyConfig.ReconnectMode.ASYNC);
        HazelcastInstance offline = HazelcastClient.newHazelcastClient(config);
        try {
            Limit limit = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofSeconds(1));
            Store store = HazelcastStore.builder(offline).build();
            assertThatThrownBy(() -> store.tryAcquire("anyone", List.of(limit), 1).toCompletableFuture().join())
                    .cause().isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(HazelcastClientOfflineException.class);
            Decision decision = RateLimiter.builder().limit(limit).store(store).build().decide("anyone");
            assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        } finally {
            offline.shutdown();
        }
    }

    /**
     * What a caller chains to a stage ({@code decideAsync}'s path) runs on a thread of the store,
     * never on Hazelcast's: on a member and on a client, whose call starts on the caller's thread
     * and whose answer a thread of Hazelcast receives.
     */
    @Test
    void whatACallerChainsToAStageRunsOnAThreadOfTheStoreOnAMemberAndAClient() {
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 1_000, Duration.ofSeconds(1));
        for (HazelcastInstance instance : List.of(members.get(0), client)) {
            try (Store store = store(instance, "stages", null)) {
                assertThat(StageThreads.of(store, "stage-", limit, 20)).as("on %s", instance).hasSize(20)
                        .allMatch(name -> name.startsWith("sluice-grid-") && !name.contains("send"));
            }
        }
    }

    /**
     * A decision ({@code decide}'s path) starts its call on the caller's thread and waits there,
     * on a client as on a member: with the store's one pool thread held by a lease's call on a
     * locked key, a decision on another key still answers.
     */
    @Test
    void aDecisionWaitsForNoThreadOfTheStoreOnAMemberAndAClient() {
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
        IMap<String, byte[]> map = members.get(0).getMap("pool-held");
        List<Store> stores = new ArrayList<>();
        List<CompletableFuture<Lease>> leases = new ArrayList<>();
        try {
            map.lock("held");
            try {
                for (HazelcastInstance instance : List.of(members.get(1), client)) {
                    Store store = HazelcastStore.builder(instance).mapName("pool-held").timeout(TEST_TIMEOUT)
                            .concurrency(1).build();
                    stores.add(store);
                    CompletableFuture<Lease> lease = store.lease("held", List.of(limit), 2).toCompletableFuture();
                    leases.add(lease);
                    String key = "free-" + (instance == client ? "client" : "member");
                    assertThat(store.tryAcquireAndWait(key, List.of(limit), 1).allowed()).as("on %s", instance).isTrue();
                    assertThat(lease).as("on %s", instance).isNotDone();
                }
            } finally {
                map.unlock("held");
            }
            // The held calls were real: each answers once the key is unlocked.
            assertThat(leases).allSatisfy(lease -> assertThat(lease.join().tokens()).isEqualTo(2));
        } finally {
            // Closed whether or not an assertion failed: a failing run leaves no store's threads behind.
            stores.forEach(Store::close);
        }
    }

    @Test
    void aClosedStoreFailsWithoutAsking() {
        Store store = store(members.get(0), "closed", null);
        store.close();
        Limit limit = Limit.of(Algorithms.GCRA, 10, Duration.ofSeconds(1));
        assertThatThrownBy(() -> store.tryAcquire("k", List.of(limit), 1).toCompletableFuture().join())
                .cause().isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
        assertThat(members.get(0).getLifecycleService().isRunning()).isTrue();
    }

    @Test
    void anAlgorithmTheMembersDoNotKnowIsRefusedWhenTheLimiterIsBuilt() {
        Algorithm custom = new AlgorithmOfYourOwn("token-bucket");
        Limit limit = Limit.of(custom, 10, Duration.ofSeconds(1));
        Store store = store(members.get(0), "custom", null);
        assertThat(store.supports(custom)).isFalse();
        assertThatThrownBy(() -> RateLimiter.builder().limit(limit).store(store).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token-bucket")
                .hasMessageContaining("256");
        // Asked directly, the store refuses it the same way: never as a store failure.
        assertThatThrownBy(() -> store.tryAcquire("k", List.of(limit), 1).toCompletableFuture().join())
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("built-in");
    }

    @Test
    void buildingAStoreWarmsItUpAndWritesNothing() {
        HazelcastStore.builder(client).mapName("warmed").build();
        // The client created the map's proxy (on the cluster) before any decision, and the
        // warm-up's requests, which no state admits, left no entry behind.
        assertThat(client.getDistributedObjects()).anyMatch(object -> object.getName().equals("warmed"));
        assertThat(members.get(0).getMap("warmed").size()).isZero();
    }

    @Test
    void badSettingsAreRefusedByName() {
        HazelcastStore.Builder builder = HazelcastStore.builder(members.get(0));
        assertThatThrownBy(() -> builder.mapName("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mapName");
        assertThatThrownBy(() -> builder.timeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> builder.concurrency(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concurrency");
    }

    private static List<RateLimiter> limitersEverywhere(String mapName, TimeSource clock, List<Limit> limits) {
        List<RateLimiter> limiters = new ArrayList<>();
        List<HazelcastInstance> instances = new ArrayList<>(members);
        instances.add(client);
        for (HazelcastInstance instance : instances) {
            var builder = RateLimiter.builder().store(store(instance, mapName, clock));
            limits.forEach(builder::limit);
            limiters.add(builder.build());
        }
        return limiters;
    }

    private static Store store(HazelcastInstance instance, String mapName, TimeSource clock) {
        HazelcastStore.Builder builder = HazelcastStore.builder(instance).mapName(mapName).timeout(TEST_TIMEOUT);
        if (clock != null) {
            builder.clockForTesting(clock);
        }
        return builder.build();
    }

    /** {@code requests} decisions on {@code key}, from 8 threads taking the limiters in turn. */
    static List<Decision> hammer(List<RateLimiter> limiters, String key, int requests) throws Exception {
        ConcurrentLinkedQueue<Decision> decisions = new ConcurrentLinkedQueue<>();
        AtomicInteger next = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                workers.add(threads.submit(() -> {
                    for (int i = next.getAndIncrement(); i < requests; i = next.getAndIncrement()) {
                        decisions.add(limiters.get(i % limiters.size()).decide(key));
                    }
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            threads.shutdownNow();
        }
        return new ArrayList<>(decisions);
    }

    /** The member other than {@code owner} that holds a backup of {@code map}'s single entry. */
    private static HazelcastInstance backupHolder(HazelcastInstance owner, String map) {
        return members.stream()
                .filter(m -> m != owner)
                .filter(m -> m.getMap(map).getLocalMapStats().getBackupEntryCount() > 0)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no member holds a backup"));
    }
}
