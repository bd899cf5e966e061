package io.sluice.jmh;

import org.openjdk.jmh.annotations.Param;

/** One decision in process: the local store with every algorithm, against Bucket4j, Resilience4j and Guava. */
public class LocalBenchmark extends DecisionBenchmark {

    /** The implementation measured. */
    @Param
    public LocalImpl impl;

    @Override
    protected Limiter createLimiter(LimitShape shape) {
        return impl.create(shape);
    }
}
