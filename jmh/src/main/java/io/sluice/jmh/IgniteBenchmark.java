package io.sluice.jmh;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Param;

/**
 * One decision on a two-node Ignite cluster whose other server node runs in a separate JVM,
 * for keys whose primary copy is on that node: Sluice's store with every algorithm. Each calls
 * from the server node in the benchmark's JVM, or with {@code caller=CLIENT} from a client node
 * there.
 */
public class IgniteBenchmark extends DecisionBenchmark {

    /** The implementation measured. */
    @Param
    public IgniteImpl impl;

    /** Who calls: the server node in the benchmark's JVM (the default), or a client node there. */
    @Param("MEMBER")
    public Caller caller;

    private @Nullable IgniteCluster cluster;

    @Override
    protected Limiter createLimiter(LimitShape shape) {
        cluster = IgniteCluster.start(caller);
        return impl.create(cluster, shape);
    }

    @Override
    protected String[] keys(KeyPattern pattern, Limiter limiter) {
        // Drawn after createLimiter started the cluster.
        IgniteCluster started = Objects.requireNonNull(cluster, "cluster");
        return pattern.keys(key -> started.primaryOnRemote(IgniteImpl.CACHE, limiter.storeKey(key)));
    }

    @Override
    protected void stopServers() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
