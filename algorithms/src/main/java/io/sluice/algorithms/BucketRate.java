package io.sluice.algorithms;

import io.sluice.api.Limit;

/**
 * The refill rate of a bucket algorithm as an exact fraction: {@code tokensPerMicro / scale}
 * tokens per microsecond. The buckets count tokens in units of {@code 1 / scale} token, so a
 * microsecond adds exactly {@code tokensPerMicro} units and no rounding ever lowers (or
 * raises) the declared rate; see docs/algorithms.md.
 *
 * <p>The rate is {@code P / D} reduced by their greatest common divisor when the capacity in
 * units, {@code B * D / gcd}, is at most {@link #MAX_UNITS}. Otherwise it is one token every
 * {@code ceil(D / P)} microseconds, accepted only when that is within {@link #TOLERANCE} of
 * the declared rate. Any other limit is rejected: it could not be enforced at its rate.
 *
 * @param tokensPerMicro units added per microsecond (the numerator)
 * @param scale units per token (the denominator)
 */
record BucketRate(long tokensPerMicro, long scale) {

    /**
     * The largest capacity in units: twice it plus a rate still below 2^53, so that a Lua
     * script computes the same on doubles.
     */
    static final long MAX_UNITS = 1L << 51;

    /** The rate may be lowered by at most one part in this many (0.1%). */
    static final long TOLERANCE = 1_000;

    /**
     * How many limits' rates {@link #of} keeps (a power of two): a decision of a token bucket or
     * GCRA needs its limit's rate, and deriving it (a greatest common divisor, several 64-bit
     * divisions) cost more than the rest of a denial's arithmetic.
     */
    static final int CACHED_RATES = 64;

    private static final int SLOT_SHIFT = Integer.SIZE - Integer.numberOfTrailingZeros(CACHED_RATES);

    /**
     * The rates derived last, each in the slot of its limit's hash, with the limit it was derived
     * for. Shared by every thread without a lock: a slot is replaced by a plain write of an
     * immutable {@link Derived}, whose final fields every reader sees whole, and a reader that
     * finds another limit there (a collision, or a write it does not see yet) looks further.
     */
    private static final Derived[] RATES = new Derived[CACHED_RATES];

    /** The rate of one limit. */
    private record Derived(Limit limit, BucketRate rate) {
    }

    /**
     * The rate of {@code limit}: the one kept for this limit object, else for a limit of the same
     * parameters in its slot, else derived now.
     *
     * <p>Why the kept limit is found by its identity: a limit is mostly built once and used for
     * every decision, and one comparison (against four of the parameters) and the rest in a method
     * of its own keep this inlined lookup small. It is inlined into every bucket transition, whose
     * compiled code must stay under the JIT's {@code -XX:InlineSmallCode} (2,500 bytes) for its
     * callers to inline it and remove its {@link io.sluice.api.Transition} (see {@link Probing}).
     *
     * @throws IllegalArgumentException saying why, when the limit cannot be enforced at its rate
     */
    static BucketRate of(String algorithm, Limit limit) {
        Derived kept = RATES[slot(limit)];
        if (kept != null && kept.limit == limit) {
            return kept.rate;
        }
        return ofLimitNotKept(algorithm, limit);
    }

    /**
     * {@link #of} for a limit object not kept: an equal limit's rate (a limit built per request,
     * say: the slot stays that limit's), else the rate derived now and kept for this limit.
     */
    private static BucketRate ofLimitNotKept(String algorithm, Limit limit) {
        int slot = slot(limit);
        Derived kept = RATES[slot];
        long permits = limit.permits();
        long burst = limit.burst();
        long periodMicros = limit.periodMicros();
        if (kept != null && kept.limit.permits() == permits && kept.limit.burst() == burst
                && kept.limit.periodMicros() == periodMicros) {
            return kept.rate;
        }
        BucketRate rate = derive(algorithm, permits, burst, periodMicros);
        RATES[slot] = new Derived(limit, rate);
        return rate;
    }

    /** The slot of a limit in {@link #RATES}: the top bits of a multiplicative hash of its hash code. */
    private static int slot(Limit limit) {
        return (limit.hashCode() * 0x9E3779B9) >>> SLOT_SHIFT;
    }

    /**
     * The rate of a limit, derived from its parameters.
     *
     * @throws IllegalArgumentException saying why, when the limit cannot be enforced at its rate
     */
    static BucketRate derive(String algorithm, long permits, long burst, long periodMicros) {
        Checks.positiveParameters(algorithm, permits, burst, periodMicros);
        long gcd = gcd(permits, periodMicros);
        long scale = periodMicros / gcd;
        if (scale <= MAX_UNITS / burst) {
            return new BucketRate(permits / gcd, scale);
        }
        long interval = (periodMicros + permits - 1) / permits;
        // interval * permits - D is the time the rounding of the interval loses per period.
        boolean withinTolerance = (interval * permits - periodMicros) * TOLERANCE <= periodMicros;
        if (withinTolerance && interval <= MAX_UNITS / burst) {
            return new BucketRate(1, interval);
        }
        throw new IllegalArgumentException(algorithm + ": cannot enforce " + permits + " per "
                + periodMicros + "us with burst " + burst + " at that rate: exactly it needs burst * period"
                + " / gcd(permits, period) = " + burst + " * " + scale + " <= 2^51, and one token every "
                + interval + "us would be " + (withinTolerance ? "a bucket of burst * " + interval
                + "us over 2^51us" : "more than 0.1% below the rate")
                + "; choose permits that divide the period evenly (a round number) or a shorter period");
    }

    /**
     * Whole tokens in {@code units} (not negative). Less than one token needs no division: a
     * denial of one token (most of a hot key's decisions) has less, and a 64-bit division was
     * about a sixteenth of such a denial's samples (JFR, benchmarks-history.md 2026-12-04).
     */
    long tokens(long units) {
        return units < scale ? 0 : units / scale;
    }

    /** {@code tokens} in units. */
    long units(long tokens) {
        return tokens * scale;
    }

    /**
     * The microseconds it takes to add {@code units}, rounded up. A rate of one unit per
     * microsecond (every limit whose period is a multiple of its permits) needs no division.
     */
    long microsToAdd(long units) {
        return tokensPerMicro == 1 ? units : (units + tokensPerMicro - 1) / tokensPerMicro;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long r = a % b;
            a = b;
            b = r;
        }
        return a;
    }
}
