package io.sluice.testkit;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An algorithm of your own (id 256) that decides as the fixed window does, under a name you
 * give: for checking that a store that runs only the built-in algorithms (as the Redis,
 * Hazelcast and Ignite stores do) says so in {@code supports} and refuses it by name, when a
 * limiter is built and when asked directly, never as a store failure.
 */
public final class AlgorithmOfYourOwn implements Algorithm {

    private final String name;

    /** @throws NullPointerException when the name is null */
    public AlgorithmOfYourOwn(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public String name() {
        return name;
    }

    /** The first id of the algorithms of your own. */
    @Override
    public int id() {
        return 256;
    }

    @Override
    public void checkLimit(long permits, long burst, long periodMicros) {
        Algorithms.FIXED_WINDOW.checkLimit(permits, burst, periodMicros);
    }

    @Override
    public Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        return Algorithms.FIXED_WINDOW.transition(state, nowMicros, limit, cost);
    }

    @Override
    public String toString() {
        return name;
    }
}
