package io.sluice.jmh;

import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.hazelcast.HazelcastStore;
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
 * One sliding-log decision on a real two-member Hazelcast cluster ({@link HazelcastCluster}:
 * the key owned by the member in the other JVM, the map's one backup on the caller's member),
 * on a hot key whose log holds {@code permits} entries: what {@link GridSlidingLogBenchmark}
 * leaves out (the call, the owner storing the new value, its backup) included. The store
 * decides at the caller's virtual clock, so that every decision is the same {@link SlidingLogOutcome},
 * as in {@link LocalSlidingLogBenchmark}. The map is in Hazelcast's default {@code BINARY} in-memory
 * format or in {@code OBJECT} format ({@link #format}). Run with {@code -jvmArgsAppend} of
 * {@link HazelcastCluster#JVM_ARGS}; it uses only the store's public API, so it also runs
 * against an older Sluice for a before-and-after.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class HazelcastSlidingLogBenchmark {

    /** The limit's permits: the log's entries. */
    @Param({"100", "1000", "10000"})
    public int permits;

    /**
     * The map's in-memory format: Hazelcast's default {@code BINARY}, or {@code OBJECT}
     * ({@link HazelcastCluster#OBJECT_FORMAT_MAPS}), where a member keeps the value itself.
     */
    @Param({"BINARY", "OBJECT"})
    public String format;

    /** What every decision does. */
    @Param
    public SlidingLogOutcome outcome;

    /** The caller's virtual clock, in microseconds since the epoch; one benchmark thread moves it. */
    private volatile long nowMicros;
    private @Nullable HazelcastCluster cluster;
    private Store store;
    private List<Limit> limits;
    private String key;

    /** The cluster, a store on the virtual clock, and a log of {@code permits} entries, one every 10 us. */
    @Setup(Level.Trial)
    public void fillTheLog() {
        cluster = HazelcastCluster.start();
        String map = "OBJECT".equals(format) ? "sluice-jmh-sliding-log" + HazelcastCluster.OBJECT_FORMAT_MAPS
                : "sluice-jmh-sliding-log";
        store = HazelcastStore.builder(cluster.caller()).mapName(map)
                .timeout(Duration.ofSeconds(10)).countInstances(false).clockForTesting(() -> nowMicros).build();
        limits = SlidingLogOutcome.steadyLimits(permits);
        String candidate = "hot-key";
        for (int i = 0; !cluster.ownedByRemote(candidate); i++) {
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
