package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import io.sluice.api.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redis store on a real Redis Cluster of three masters. */
class RedisClusterStoreIT {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.cluster();

    private static final List<Limit> LIMITS = List.of(
            Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).named("per-second"),
            Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1)).named("per-day"),
            Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofMinutes(1)).named("endpoint"));

    private Store store;

    @BeforeEach
    void connect() {
        for (int node = 0; node < 3; node++) {
            redis.command(node, "FLUSHALL");
        }
        store = RedisStore.cluster(RedisURI.create(redis.uri())).commandTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void multiLimitDecisionsWorkOnEverySlot() {
        String[] identityOfSlot = new String[SlotHash.SLOT_COUNT];
        int covered = 0;
        for (int i = 0; covered < SlotHash.SLOT_COUNT; i++) {
            String identity = "client-" + i;
            int slot = SlotHash.getSlot(RedisKeys.key(identity));
            if (identityOfSlot[slot] == null) {
                identityOfSlot[slot] = identity;
                covered++;
            }
        }

        // Asynchronously, 256 decisions in flight at a time.
        List<CompletableFuture<Decision>> decisions = new ArrayList<>();
        for (String identity : identityOfSlot) {
            decisions.add(store.tryAcquire(identity, LIMITS, 2).toCompletableFuture());
            if (decisions.size() == 256) {
                assertAllAdmittedWithThreeLeft(decisions);
            }
        }
        assertAllAdmittedWithThreeLeft(decisions);
        // Each master serves a third of the slots; at least the one-minute "endpoint" keys
        // are still there (the per-second ones may have expired already).
        for (int node = 0; node < 3; node++) {
            assertThat((Long) redis.command(node, "DBSIZE")).as("keys on master " + node)
                    .isGreaterThanOrEqualTo(SlotHash.SLOT_COUNT / 3);
        }
    }

    private static void assertAllAdmittedWithThreeLeft(List<CompletableFuture<Decision>> decisions) {
        for (CompletableFuture<Decision> decision : decisions) {
            assertThat(decision.join().allowed()).isTrue();
            assertThat(decision.join().remaining()).isEqualTo(3);
        }
        decisions.clear();
    }

    @Test
    void aClientsOneKeyWorksWhateverItsIdentity() {
        for (String identity : List.of("{", "}", "{a}", "a{b}c{d}", "\n", "x".repeat(10_240), "{per-day}")) {
            assertThat((Long) redis.command(0, "CLUSTER", "KEYSLOT", RedisKeys.key(identity)))
                    .as(identity).isEqualTo(SlotHash.getSlot(RedisKeys.key(identity)));
            Decision first = store.tryAcquire(identity, LIMITS, 5).toCompletableFuture().join();
            Decision second = store.tryAcquire(identity, LIMITS, 1).toCompletableFuture().join();
            assertThat(first.allowed()).isTrue();
            assertThat(second.allowed()).isFalse();
            assertThat(second.binding().name()).isEqualTo("endpoint");
        }
    }

    /** Redis 7 and later: build() loaded the library on every master. */
    @Test
    void theLibraryIsOnEveryMaster() {
        assumeFalse(redis.version().startsWith("6."), "Redis 7 or later");
        for (int node = 0; node < 3; node++) {
            assertThat(String.valueOf(redis.command(node, "FUNCTION", "LIST", "LIBRARYNAME", LuaLibrary.SLUICE.name())))
                    .as("master " + node).contains(LuaLibrary.SLUICE.name() + "_decide");
        }
    }

    /** A flush of the scripts, or of the functions on Redis 7 and later, on one master after another. */
    @Test
    void aScriptMissingOnOneNodeIsLoadedThereWithoutAFailedDecision() {
        List<String> clients = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            clients.add("spread-" + i);
        }
        for (String client : clients) {
            assertThat(store.tryAcquire(client, LIMITS, 1).toCompletableFuture().join().allowed()).isTrue();
        }
        for (int node = 0; node < 3; node++) {
            redis.command(node, "SCRIPT", "FLUSH");
            if (!redis.version().startsWith("6.")) {
                redis.command(node, "FUNCTION", "FLUSH");
            }
            for (String client : clients) {
                assertThat(store.tryAcquire(client, LIMITS, 1).toCompletableFuture().join().allowed()).isTrue();
            }
        }
    }

    @Test
    void decisionsResumeOnEveryMasterAfterTheClusterRestarts() {
        List<String> clients = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            clients.add("restart-" + i);
        }
        try (RedisFixture own = RedisFixture.cluster().start();
             Store restarted = RedisStore.cluster(RedisURI.create(own.uri())).commandTimeout(Duration.ofSeconds(1))
                     .build()) {
            for (String client : clients) {
                assertThat(restarted.tryAcquire(client, LIMITS, 1).toCompletableFuture().join().allowed()).isTrue();
            }

            own.restart();

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (String client : clients) {
                Decision decision = null;
                while (decision == null) {
                    try {
                        decision = restarted.tryAcquire(client, LIMITS, 1).toCompletableFuture().join();
                    } catch (CompletionException e) {
                        assertThat(e).hasCauseInstanceOf(StoreUnavailableException.class);
                        assertThat(System.nanoTime() - deadline).as("failing 30 s after the restart: " + e)
                                .isNegative();
                    }
                }
                // The restart lost the data: the client starts afresh.
                assertThat(decision.allowed()).isTrue();
                assertThat(decision.remaining()).isEqualTo(4);
            }
        }
    }
}
