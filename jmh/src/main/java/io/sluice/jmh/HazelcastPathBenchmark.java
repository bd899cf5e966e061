package io.sluice.jmh;

import io.sluice.algorithms.grid.GridCalls;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.hazelcast.HazelcastStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Param;

/**
 * Where a Hazelcast decision's time goes: the same decision on the same two-member cluster as
 * {@link HazelcastBenchmark} (the caller is not the owner), with one layer of Sluice's path
 * added at a time, so that each layer's cost is the difference between two neighbours of the
 * same run. Run it with plain JMH and Hazelcast's JVM options, as docs/benchmarks.md says.
 */
public class HazelcastPathBenchmark extends DecisionBenchmark {

    /** How much of Sluice's path a decision takes. */
    public enum Path {
        /** The floor: a minimal token bucket's {@code executeOnKey} on the caller's thread. */
        FLOOR,
        /** The floor's call made on a thread of a {@link GridCalls} pool, the caller waiting for it. */
        FLOOR_HANDED_OFF,
        /** The floor's processor by {@code submitToKey}, its future waited for with a timeout on the caller's thread. */
        FLOOR_SUBMITTED,
        /** Sluice's store without a limiter or a guard: {@code tryAcquire}'s stage, waited for. */
        STORE,
        /** Sluice's store without a limiter or a guard: {@code tryAcquireAndWait}, the path of {@code decide}. */
        STORE_WAIT,
        /** As a user runs it: a {@code RateLimiter} through the store guard ({@link SluiceLimiter}). */
        LIMITER
    }

    /** The path measured. */
    @Param
    public Path path;

    private @Nullable HazelcastCluster cluster;

    @Override
    protected Limiter createLimiter(LimitShape shape) {
        cluster = HazelcastCluster.start();
        switch (path) {
            case FLOOR:
                return new EntryProcessorFloorLimiter(cluster, shape);
            case FLOOR_HANDED_OFF:
                return handedOff(new EntryProcessorFloorLimiter(cluster, shape));
            case FLOOR_SUBMITTED:
                return new EntryProcessorFloorLimiter(cluster, shape, true);
            case STORE:
                return unguarded(store(cluster), shape, false);
            case STORE_WAIT:
                return unguarded(store(cluster), shape, true);
            case LIMITER:
                return new SluiceLimiter(store(cluster), "token-bucket", shape);
            default:
                throw new IllegalArgumentException("unknown path " + path);
        }
    }

    @Override
    protected String[] keys(KeyPattern pattern, Limiter limiter) {
        HazelcastCluster started = Objects.requireNonNull(cluster, "cluster");
        return pattern.keys(key -> started.ownedByRemote(limiter.storeKey(key)));
    }

    @Override
    protected void stopServers() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** The store as {@link HazelcastImpl} builds it for the token bucket. */
    private static Store store(HazelcastCluster cluster) {
        return HazelcastStore.builder(cluster.caller()).mapName("sluice-jmh-sluice")
                .timeout(Duration.ofSeconds(10)).build();
    }

    private static Limiter handedOff(Limiter floor) {
        GridCalls calls = new GridCalls("the floor's map", Duration.ofSeconds(10), HazelcastStore.DEFAULT_CONCURRENCY);
        return new Limiter() {
            @Override
            public boolean tryAcquire(String key, long cost) {
                return calls.call(() -> floor.tryAcquire(key, cost)).join();
            }

            @Override
            public void close() {
                calls.close();
                floor.close();
            }
        };
    }

    private static Limiter unguarded(Store store, LimitShape shape, boolean waiting) {
        List<Limit> limits = SluiceLimiter.limits("token-bucket", shape);
        return new Limiter() {
            @Override
            public boolean tryAcquire(String key, long cost) {
                return waiting ? store.tryAcquireAndWait(key, limits, cost).allowed()
                        : store.tryAcquire(key, limits, cost).toCompletableFuture().join().allowed();
            }

            @Override
            public void close() {
                store.close();
            }
        };
    }
}
