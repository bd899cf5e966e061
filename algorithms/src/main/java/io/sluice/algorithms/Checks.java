package io.sluice.algorithms;

/** Argument checks and arithmetic shared by the algorithms. */
final class Checks {

    /** The largest {@code B * T} the bucket algorithms accept, so that times stay below 2^53. */
    static final long MAX_BUCKET_MICROS = 1L << 50;

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

    /** The bucket algorithms need {@code B * ceil(D / P) <= 2^50}. */
    static void bucketFits(String algorithm, long permits, long burst, long periodMicros) {
        positiveParameters(algorithm, permits, burst, periodMicros);
        long interval = tokenInterval(permits, periodMicros);
        if (interval > MAX_BUCKET_MICROS / burst) {
            throw new IllegalArgumentException(algorithm + ": burst " + burst + " times the token interval "
                    + interval + "us (period " + periodMicros + "us / permits " + permits
                    + ", rounded up) exceeds 2^50us: burst " + burst);
        }
    }

    /** {@code T = ceil(D / P)}: one token is added every T microseconds. */
    static long tokenInterval(long permits, long periodMicros) {
        return (periodMicros + permits - 1) / permits;
    }

    static void cost(long cost) {
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
    }

    static boolean hasTag(long[] state, long tag) {
        return state.length > 0 && state[0] == tag;
    }
}
