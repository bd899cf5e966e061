package io.sluice.jmh;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Param;

/**
 * One decision on a two-member Hazelcast cluster whose other member runs in a separate JVM,
 * for keys that member owns (the caller is not the owner): Sluice's store with every
 * algorithm, Bucket4j's Hazelcast backend, and a plain entry processor as the floor. Each calls
 * from the member in the benchmark's JVM, or with {@code caller=CLIENT} from a client there.
 */
public class HazelcastBenchmark extends DecisionBenchmark {

    /** The implementation measured. */
    @Param
    public HazelcastImpl impl;

    /** Who calls: the member in the benchmark's JVM (the default), or a client there. */
    @Param("MEMBER")
    public Caller caller;

    private @Nullable HazelcastCluster cluster;

    @Override
    protected Limiter createLimiter(LimitShape shape) {
        cluster = HazelcastCluster.start(caller);
        return impl.create(cluster, shape);
    }

    @Override
    protected String[] keys(KeyPattern pattern, Limiter limiter) {
        // Drawn after createLimiter started the cluster.
        HazelcastCluster started = Objects.requireNonNull(cluster, "cluster");
        return pattern.keys(key -> started.ownedByRemote(limiter.storeKey(key)));
    }

    @Override
    protected void stopServers() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
