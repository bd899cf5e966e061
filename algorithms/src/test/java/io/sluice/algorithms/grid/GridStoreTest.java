package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A decision waited for on the caller's thread: started there when the store can start it,
 * else made on the pool; a stage's started as the store can and completed on the pool; decided
 * as the member's step decides either way.
 */
class GridStoreTest {

    private static final long NOW = 1_764_000_000_000_000L;
    private static final List<Limit> LIMITS = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofSeconds(1)));
    private static final Limit LOG = Limit.of(Algorithms.SLIDING_LOG, 500, Duration.ofSeconds(1)).named("log");
    private static final Limit BUCKET = Limit.of(Algorithms.TOKEN_BUCKET, 1_000, Duration.ofSeconds(1)).named("bucket");

    /** The states of an owner in this JVM, changed by each operation as a member's entry processor does. */
    private final Map<String, byte[]> owned = new ConcurrentHashMap<>();
    private final Map<String, Thread> ranOn = new ConcurrentHashMap<>();

    /** The first byte of each request the owner ran: a plain decision's, a batch's or a request with chunks. */
    private final List<Byte> formatsRun = new CopyOnWriteArrayList<>();

    private synchronized long[] runOnOwner(String key, GridOperation operation) {
        ranOn.put(key, Thread.currentThread());
        formatsRun.add(operation.request()[0]);
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
     * A stage's call starts as a waited-for one does, without a thread of the pool, and the stage
     * completes on a thread of the pool, never on the cluster's thread that received the answer.
     */
    @Test
    void aStagesCallStartsAsAWaitedForOneAndItsStageCompletesOnThePool() throws Exception {
        ExecutorService cluster = Executors.newSingleThreadExecutor(task -> new Thread(task, "the cluster's thread"));
        // The cluster answers once the stage is chained, so that the stage is completed by whoever hands the answer on.
        AtomicReference<CountDownLatch> chained = new AtomicReference<>();
        GridStore.StartOnOwner start = (key, operation) -> {
            ranOn.put("start", Thread.currentThread());
            CountDownLatch answer = chained.get();
            return CompletableFuture.supplyAsync(() -> {
                awaitUninterruptibly(answer);
                return runOnOwner(key, operation);
            }, cluster);
        };
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 1),
                this::runOnOwner, start, null, () -> NOW, null)) {
            KeyState reference = KeyState.empty();
            for (int i = 0; i < 3; i++) {
                Decision expected = reference.tryAcquire(LIMITS, NOW, 1);
                AtomicReference<Thread> completedOn = new AtomicReference<>();
                chained.set(new CountDownLatch(1));
                CompletableFuture<Decision> stage = store.tryAcquire("staged", LIMITS, 1)
                        .whenComplete((decided, failure) -> completedOn.set(Thread.currentThread()))
                        .toCompletableFuture();
                chained.get().countDown();
                Decision decision = stage.get(30, TimeUnit.SECONDS);
                assertThat(decision).as("decision %s", i).isEqualTo(expected);
                assertThat(ranOn.get("start")).isSameAs(Thread.currentThread());
                assertThat(ranOn.get("staged").getName()).isEqualTo("the cluster's thread");
                assertThat(completedOn.get().getName()).startsWith("sluice-grid-").doesNotContain("send");
            }
        } finally {
            cluster.shutdown();
        }
    }

    /**
     * A store given a map of chunks: a long sliding log's decisions, waited for or not, are the
     * whole log's, and the owner's value stays a bounded head.
     */
    @Test
    void withChunksALongLogDecidesAsTheWholeLogWithABoundedValue() {
        Map<String, long[]> chunks = new ConcurrentHashMap<>();
        GridStore.ChunkCalls chunkCalls = chunkCalls(chunks);
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

    /**
     * A store given a map of chunks sends a decision without a sliding log as it is, not with
     * chunks, also on a key whose sliding log (another request's limit) is a head: it decides
     * there, beside the head, and the log's decisions stay the whole log's.
     */
    @Test
    void withChunksADecisionWithoutASlidingLogGoesAsItIsAndDecidesBesideAHead() {
        Map<String, long[]> chunks = new ConcurrentHashMap<>();
        AtomicLong now = new AtomicLong(NOW);
        KeyState reference = KeyState.empty();
        boolean besideAHead = false;
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 1),
                this::runOnOwner, (key, operation) -> CompletableFuture.completedFuture(runOnOwner(key, operation)),
                chunkCalls(chunks), now::get, null)) {
            for (int i = 0; i < 3_000; i++) {
                now.addAndGet(700);
                List<Limit> limits = i % 3 == 0 ? List.of(BUCKET) : i % 3 == 1 ? List.of(LOG) : List.of(BUCKET, LOG);
                boolean headBefore = owned.containsKey("mixed") && KeyState.holdsHeads(owned.get("mixed"));
                formatsRun.clear();
                Decision expected = reference.tryAcquire(limits, now.get(), 1);
                Decision actual = i % 2 == 0 ? store.tryAcquireAndWait("mixed", limits, 1)
                        : store.tryAcquire("mixed", limits, 1).toCompletableFuture().join();
                assertThat(actual).as("decision %s", i).isEqualTo(expected);
                if (limits.size() == 1 && limits.get(0) == BUCKET) {
                    assertThat(formatsRun).as("decision %s's requests", i).containsExactly(GridRequest.FORMAT_VERSION);
                    besideAHead |= headBefore;
                } else {
                    assertThat(formatsRun).as("decision %s's requests", i).isNotEmpty()
                            .containsOnly(GridChunks.CHUNKED_FORMAT);
                }
            }
        }
        assertThat(besideAHead).as("a bucket's decision went beside a head").isTrue();
        assertThat(chunks).isNotEmpty();
    }

    /**
     * Decisions waited for on one key from several threads, gathered into batches that mix
     * sliding-log decisions with others: every batch holding a sliding log goes with chunks,
     * every other as it is, and the owner's decisions, in the order it made them, are the
     * whole log's, each answered to its own caller.
     */
    @Test
    void withChunksBatchesMixingALogAndOtherLimitsDecideAsTheWholeLog() throws InterruptedException {
        Map<String, long[]> chunks = new ConcurrentHashMap<>();
        AtomicLong clock = new AtomicLong(NOW);
        ThreadLocal<Long> readAt = new ThreadLocal<>();
        KeyState reference = KeyState.empty();
        Map<Long, Decision> expectedAt = new ConcurrentHashMap<>();
        List<String> wrong = new CopyOnWriteArrayList<>();
        AtomicInteger mixedBatches = new AtomicInteger();
        GridStore.OnOwner checked = (key, operation) -> {
            synchronized (reference) {
                byte[] request = operation.request();
                boolean chunked = request[0] == GridChunks.CHUNKED_FORMAT;
                byte[] inner = chunked ? GridChunks.Request.decode(request).operation() : request;
                List<GridRequest> decisions = new ArrayList<>();
                for (GridOperation decision : GridOperation.decisionOnWire(inner).decisions()) {
                    decisions.add(GridRequest.decode(decision.request()));
                }
                long withLog = decisions.stream().filter(d -> d.limits().contains(LOG)).count();
                if ((withLog > 0) != chunked) {
                    wrong.add("sent " + (chunked ? "with" : "without") + " chunks: " + decisions.size()
                            + " decisions, " + withLog + " with a log");
                }
                if (withLog > 0 && withLog < decisions.size()) {
                    mixedBatches.incrementAndGet();
                }
                long[] reply = runOnOwner(key, operation);
                long[] decided = chunked ? GridChunks.Reply.decode(reply, decisions.size()).decided() : reply;
                for (int i = 0; i < decided.length / GridReply.LENGTH; i++) {
                    GridRequest decision = decisions.get(i);
                    Decision expected = reference.tryAcquire(decision.limits(), decision.callerNowMicros(),
                            decision.cost());
                    Decision actual = GridReply.decode(
                            Arrays.copyOfRange(decided, i * GridReply.LENGTH, (i + 1) * GridReply.LENGTH),
                            decision.limits());
                    if (!actual.equals(expected)) {
                        wrong.add("at " + decision.callerNowMicros() + ": " + actual + ", the whole log's " + expected);
                    }
                    expectedAt.put(decision.callerNowMicros(), expected);
                }
                return reply;
            }
        };
        Executor later = CompletableFuture.delayedExecutor(200, TimeUnit.MICROSECONDS);
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 4),
                checked, (key, operation) -> CompletableFuture.supplyAsync(() -> checked.run(key, operation), later),
                chunkCalls(chunks), () -> {
                    long at = clock.addAndGet(300);
                    readAt.set(at);
                    return at;
                }, null)) {
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                callers.add(new Thread(() -> {
                    for (int i = first; i < first + 1_200; i++) {
                        List<Limit> limits = i % 3 == 0 ? List.of(BUCKET) : i % 3 == 1 ? List.of(LOG) : List.of(BUCKET, LOG);
                        Decision decision = store.tryAcquireAndWait("mixed", limits, 1);
                        Decision expected = expectedAt.get(readAt.get());
                        if (!decision.equals(expected)) {
                            wrong.add("caller at " + readAt.get() + " got " + decision + ", the owner decided " + expected);
                        }
                    }
                }));
            }
            callers.forEach(Thread::start);
            for (Thread caller : callers) {
                caller.join();
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(mixedBatches.get()).as("batches mixing a log's decisions with others").isPositive();
        assertThat(chunks).isNotEmpty();
    }

    /**
     * A bucket leased, and its unused tokens given back, on a key whose sliding log (another
     * request's limit) is a head: the lease and the give-back go as they are and change only
     * the bucket, and the log's decisions after them stay the whole log's.
     */
    @Test
    void withChunksABucketIsLeasedAndGivenBackBesideAHead() {
        Map<String, long[]> chunks = new ConcurrentHashMap<>();
        AtomicLong now = new AtomicLong(NOW);
        KeyState reference = KeyState.empty();
        int leases = 0;
        try (GridStore store = new GridStore("the test store", new GridCalls("the test cluster", Duration.ofSeconds(30), 1),
                this::runOnOwner, (key, operation) -> CompletableFuture.completedFuture(runOnOwner(key, operation)),
                chunkCalls(chunks), now::get, null)) {
            for (int i = 0; i < 2_000; i++) {
                now.addAndGet(700);
                if (i >= 300 && i % 50 == 49) {
                    assertThat(KeyState.holdsHeads(owned.get("leased"))).as("a head before lease %s", leases).isTrue();
                    Lease expected = reference.lease(List.of(BUCKET), now.get(), 20);
                    Lease lease = store.lease("leased", List.of(BUCKET), 20).toCompletableFuture().join();
                    assertThat(lease).as("lease %s", leases).isEqualTo(expected);
                    now.addAndGet(700);
                    reference.giveBack(List.of(BUCKET), now.get(), lease.takenAtMicros(), 5);
                    store.giveBack("leased", List.of(BUCKET), lease, 5).toCompletableFuture().join();
                    leases++;
                    continue;
                }
                Decision expected = reference.tryAcquire(List.of(LOG), now.get(), 1);
                assertThat(store.tryAcquireAndWait("leased", List.of(LOG), 1)).as("decision %s", i).isEqualTo(expected);
            }
            now.addAndGet(700);
            assertThat(store.tryAcquireAndWait("leased", List.of(BUCKET), 1)).as("the bucket after the leases")
                    .isEqualTo(reference.tryAcquire(List.of(BUCKET), now.get(), 1));
        }
        assertThat(leases).isEqualTo(34);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static GridStore.ChunkCalls chunkCalls(Map<String, long[]> chunks) {
        return new GridStore.ChunkCalls() {
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
    }

    private static void assertDecidedAsTheReferenceDoes(GridStore store, String key) {
        KeyState reference = KeyState.empty();
        for (int i = 0; i < 3; i++) {
            Decision expected = reference.tryAcquire(LIMITS, NOW, 1);
            assertThat(store.tryAcquireAndWait(key, LIMITS, 1)).as("decision %s", i).isEqualTo(expected);
        }
    }
}
