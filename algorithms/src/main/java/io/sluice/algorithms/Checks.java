package io.sluice.algorithms;

import org.jspecify.annotations.Nullable;

/** Argument checks and arithmetic shared by the algorithms. */
final class Checks {

    /** What an algorithm reads when no state is stored: no tag, so it is the fresh state. */
    static final long[] NO_STATE = {};

    private Checks() {
    }

    static void positiveParameters(String algorithm, long permits, long burst, long periodMicros) {
        if (permits < 1) {
            throw new IllegalArgumentException(algorithm + ": permits must be at least 1: " + permits);
        }
        if (burst < 1) {
            throw new IllegalArgumentException(algorithm + ": burst must be at least 1: " + burst);
        }
        if (periodMicros < 1) {
            throw new IllegalArgumentException(algorithm + ": period must be at least 1us: " + periodMicros + "us");
        }
    }

    /** The windows count requests per period; a burst other than the permits has no meaning. */
    static void burstEqualsPermits(String algorithm, long permits, long burst, long periodMicros) {
        positiveParameters(algorithm, permits, burst, periodMicros);
        if (burst != permits) {
            throw new IllegalArgumentException(algorithm + " takes no burst other than its permits ("
                    + permits + "): " + burst);
        }
    }

    static void cost(long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
    }

    /**
     * An admission's new state of three longs as {@code newState} says: none, a new array, or
     * {@code old} overwritten when it has three longs.
     */
    static long[] written(Probing.NewState newState, long @Nullable [] old, long first, long second, long third) {
        if (newState == Probing.NewState.NONE) {
            return NO_STATE;
        }
        if (newState == Probing.NewState.IN_PLACE && old != null && old.length == 3) {
            old[0] = first;
            old[1] = second;
            old[2] = third;
            return old;
        }
        return new long[] {first, second, third};
    }

    /** {@link #written(Probing.NewState, long[], long, long, long)} for a state of four longs. */
    static long[] written(Probing.NewState newState, long @Nullable [] old, long first, long second, long third,
                          long fourth) {
        if (newState == Probing.NewState.NONE) {
            return NO_STATE;
        }
        if (newState == Probing.NewState.IN_PLACE && old != null && old.length == 4) {
            old[0] = first;
            old[1] = second;
            old[2] = third;
            old[3] = fourth;
            return old;
        }
        return new long[] {first, second, third, fourth};
    }

    static boolean hasTag(long @Nullable [] state, long tag) {
        return state != null && state.length > 0 && state[0] == tag;
    }
}
