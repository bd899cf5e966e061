package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A decision waited for on the caller's thread: started there when the store can start it,
 * else made on the pool; decided as the member's step decides either way.
 */
class GridStoreTest {

    private static final long NOW = 1_764_000_000_000_000L;
    private static final List<Limit> LIMITS = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofSeconds(1)));

    /** The states of an owner in this JVM, changed by each operation as a member's entry processor does. */
    private final Map<String, byte[]> owned = new ConcurrentHashMap<>();
    private final Map<String, Thread> ranOn = new ConcurrentHashMap<>();

    private long[] runOnOwner(String key, GridOperation operation) {
        ranOn.put(key, Thread.currentThread());
        GridRequest.Outcome outcome = operation.run(owned.get(key), () -> NOW);
        if (outcome.write()) {
            byte[] state = outcome.state();
            if (state == null) {
                owned.remove(key);
            } else {
                owned.put(key, state);
            }
        }
        return outcome.reply();
    }

    @Test
    void aStartedCallIsMadeAndWaitedForOnTheCallersThread() {
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 1),
                this::runOnOwner, (key, operation) -> CompletableFuture.completedFuture(runOnOwner(key, operation)),
                null, () -> NOW, null)) {
            assertDecidedAsTheReferenceDoes(store, "started");
            assertThat(ranOn.get("started")).isSameAs(Thread.currentThread());
        }
    }

    @Test
    void aCallTheStoreCannotStartIsMadeOnThePoolAndWaitedFor() {
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 1),
                this::runOnOwner, (key, operation) -> null, null, () -> NOW, null)) {
            assertDecidedAsTheReferenceDoes(store, "pooled");
            assertThat(ranOn.get("pooled")).isNotSameAs(Thread.currentThread());
        }
    }

    /**
     * A store given a map of chunks: a long sliding log's decisions, waited for or not, are the
     * whole log's, and the owner's value stays a bounded head.
     */
    @Test
    void withChunksALongLogDecidesAsTheWholeLogWithABoundedValue() {
        Map<String, long[]> chunks = new ConcurrentHashMap<>();
        GridStore.ChunkCalls chunkCalls = new GridStore.ChunkCalls() {
            @Override
            public CompletableFuture<long @Nullable []> read(String key, String limit, long birth, long index) {
                return CompletableFuture.completedFuture(chunks.get(key + "/" + limit + "/" + birth + "/" + index));
            }

            @Override
            public CompletableFuture<?> write(String key, String limit, long birth, long index, long[] entries,
                                              long ttlMicros) {
                chunks.put(key + "/" + limit + "/" + birth + "/" + index, entries);
                return CompletableFuture.completedFuture(null);
            }
        };
        List<Limit> log = List.of(Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofSeconds(1)).named("log"));
        AtomicLong now = new AtomicLong(NOW);
        KeyState reference = KeyState.empty();
        int largest = 0;
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 1),
                this::runOnOwner, (key, operation) -> CompletableFuture.completedFuture(runOnOwner(key, operation)),
                chunkCalls, now::get, null)) {
            for (int i = 0; i < 3_000; i++) {
                now.addAndGet(900);
                Decision expected = reference.tryAcquire(log, now.get(), 1);
                Decision actual = i % 2 == 0 ? store.tryAcquireAndWait("log", log, 1)
                        : store.tryAcquire("log", log, 1).toCompletableFuture().join();
                assertThat(actual).as("decision %s", i).isEqualTo(expected);
                largest = Math.max(largest, owned.get("log").length);
            }
        }
        assertThat(chunks).isNotEmpty();
        assertThat(largest).as("the largest value stored").isLessThan(6_000);
    }

    private static void assertDecidedAsTheReferenceDoes(GridStore store, String key) {
        KeyState reference = KeyState.empty();
        for (int i = 0; i < 3; i++) {
            Decision expected = reference.tryAcquire(LIMITS, NOW, 1);
            assertThat(store.tryAcquireAndWait(key, LIMITS, 1)).as("decision %s", i).isEqualTo(expected);
        }
    }
}
