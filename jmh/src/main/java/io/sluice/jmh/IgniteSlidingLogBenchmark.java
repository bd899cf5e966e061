package io.sluice.jmh;

import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.ignite.IgniteStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One sliding-log decision on a real two-node Ignite cluster ({@link IgniteCluster}: the key's
 * primary copy on the node in the other JVM, its one backup on the caller's node), on a hot key
 * whose log holds {@code permits} entries, as {@link HazelcastSlidingLogBenchmark} on Hazelcast:
 * the call, the primary storing the new value and its backup included. The store decides at the
 * caller's virtual clock, so that every decision is the same {@link SlidingLogOutcome}. The store
 * keeps a long log as a head and chunks or whole ({@link #logChunks}), so that one build measures
 * both. Run with {@code -jvmArgsAppend} of {@link IgniteCluster#JVM_ARGS}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class IgniteSlidingLogBenchmark {

    /** The limit's permits: the log's entries. */
    @Param({"100", "1000", "10000"})
    public int permits;

    /**
     * Whether the store keeps a long log as a bounded head and chunks ({@code true}, the default)
     * or whole in the key's entry ({@code false}): {@link IgniteStore#LOG_CHUNKS_PROPERTY} while
     * the store is built.
     */
    @Param({"true", "false"})
    public boolean logChunks;

    /** What every decision does. */
    @Param
    public SlidingLogOutcome outcome;

    /** The caller's virtual clock, in microseconds since the epoch; one benchmark thread moves it. */
    private volatile long nowMicros;
    private @Nullable IgniteCluster cluster;
    private Store store;
    private List<Limit> limits;
    private String key;

    /** The cluster, a store on the virtual clock, and a log of {@code permits} entries, one every 10 us. */
    @Setup(Level.Trial)
    public void fillTheLog() {
        IgniteCluster started = IgniteCluster.start();
        cluster = started;
        String cache = "sluice-jmh-sliding-log";
        System.setProperty(IgniteStore.LOG_CHUNKS_PROPERTY, Boolean.toString(logChunks));
        try {
            store = IgniteStore.builder(started.caller()).cacheName(cache).backups(1)
                    .timeout(Duration.ofSeconds(10)).countInstances(false).clockForTesting(() -> nowMicros).build();
        } finally {
            System.clearProperty(IgniteStore.LOG_CHUNKS_PROPERTY);
        }
        limits = SlidingLogOutcome.steadyLimits(permits);
        String candidate = "hot-key";
        for (int i = 0; !started.primaryOnRemote(cache, candidate); i++) {
            candidate = "hot-key-" + i;
        }
        key = candidate;
        SlidingLogOutcome.fill(store, key, limits, permits, micros -> nowMicros = micros);
    }

    /** Closes the store, then the cluster. */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        try {
            store.close();
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** One decision; the clock moves 10 us first for an admission, not at all for a denial. */
    @Benchmark
    public boolean decide() {
        nowMicros = outcome.nextMicros(nowMicros, permits);
        return outcome.allowed(store.tryAcquireAndWait(key, limits, 1));
    }
}
