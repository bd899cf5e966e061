package io.sluice.core;

/**
 * How a {@link StoreGuard} leases tokens (local quota leasing, docs/operations.md): an
 * instance takes a batch of a busy key's tokens from the store at once and decides that
 * key's next requests locally, without a store call, until the batch runs out or the lease
 * ends. The tokens are charged in the store when leased, so leasing never over-admits; the
 * tokens an instance holds and does not spend are the bounded under-admission it costs.
 * Immutable.
 *
 * <pre>{@code
 * StoreGuard guard = StoreGuard.custom().leasing(LeasePolicy.custom().share(0.05).build()).build();
 * }</pre>
 *
 * @see StoreGuard.Builder#leasing(LeasePolicy)
 */
public final class LeasePolicy {

    /** The largest batch, as a share of the smallest capacity among a request's limits: 10%. */
    public static final double DEFAULT_SHARE = 0.1;
    /**
     * The longest a lease may be spent, as a share of the shortest period among the limits: the
     * whole period. It is also the horizon a key's rate is counted over.
     */
    public static final double DEFAULT_LENGTH_SHARE = 1;
    /** A key is leased once it asks for at least this many tokens per longest lease on this instance. */
    public static final long DEFAULT_MIN_TOKENS = 2;
    /** The most keys whose leases and rates an instance tracks (least recently used ones go first). */
    public static final long DEFAULT_MAX_KEYS = 100_000;

    private static final LeasePolicy DEFAULTS = new Builder().build();

    final double share;
    final double lengthShare;
    final long minTokens;
    final long maxKeys;
    final boolean refillAhead;

    private LeasePolicy(Builder builder) {
        this.share = builder.share;
        this.lengthShare = builder.lengthShare;
        this.minTokens = builder.minTokens;
        this.maxKeys = builder.maxKeys;
        this.refillAhead = builder.refillAhead;
    }

    /** The defaults: {@link #DEFAULT_SHARE}, {@link #DEFAULT_LENGTH_SHARE}, {@link #DEFAULT_MIN_TOKENS}, {@link #DEFAULT_MAX_KEYS}. */
    public static LeasePolicy ofDefaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    @Override
    public String toString() {
        return "LeasePolicy[share " + share + ", length up to " + lengthShare + " of the shortest period, from "
                + minTokens + " tokens per longest lease, " + maxKeys + " keys" + (refillAhead ? ", refill ahead" : "")
                + "]";
    }

    /** Builds a {@link LeasePolicy}. Not thread-safe. */
    public static final class Builder {

        private double share = DEFAULT_SHARE;
        private double lengthShare = DEFAULT_LENGTH_SHARE;
        private long minTokens = DEFAULT_MIN_TOKENS;
        private long maxKeys = DEFAULT_MAX_KEYS;
        private boolean refillAhead;

        private Builder() {
        }

        /**
         * The largest batch one lease takes, as a share of the smallest capacity (burst, or
         * permits of a window) among the request's limits. A batch is at least one request's
         * cost; a limit too small for that is not leased.
         *
         * @throws IllegalArgumentException unless in (0, 1]
         */
        public Builder share(double share) {
            if (!(share > 0 && share <= 1)) {
                throw new IllegalArgumentException("lease share must be in (0, 1]: " + share);
            }
            this.share = share;
            return this;
        }

        /**
         * The longest a lease may be spent, as a share of the shortest period among the
         * request's limits; also the horizon over which a key's rate on this instance is
         * counted. A lease lasts as long as the key's rate here takes to ask for two full
         * batches, at most this; it also ends at the end of the window it was charged in (fixed
         * window, sliding window counter) and when its binding limit would be fully reset,
         * whichever comes first.
         *
         * @throws IllegalArgumentException unless in (0, 1]
         */
        public Builder lengthShare(double lengthShare) {
            if (!(lengthShare > 0 && lengthShare <= 1)) {
                throw new IllegalArgumentException("lease length share must be in (0, 1]: " + lengthShare);
            }
            this.lengthShare = lengthShare;
            return this;
        }

        /**
         * The tokens a key must ask this instance for per longest lease ({@link #lengthShare}),
         * on average, before it is leased: a key seen more rarely goes to the store every time.
         *
         * @throws IllegalArgumentException when below 1
         */
        public Builder minTokens(long minTokens) {
            if (minTokens < 1) {
                throw new IllegalArgumentException("minTokens must be at least 1: " + minTokens);
            }
            this.minTokens = minTokens;
            return this;
        }

        /**
         * The most keys tracked; a key dropped gives its lease's unused tokens back.
         *
         * @throws IllegalArgumentException when below 1
         */
        public Builder maxKeys(long maxKeys) {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be at least 1: " + maxKeys);
            }
            this.maxKeys = maxKeys;
            return this;
        }

        /**
         * Whether a key's next batch is leased in the background once its lease runs low (a
         * quarter of its tokens left), so that its requests go on from the next lease when this
         * one is spent instead of waiting for a store call: no request of a busy key waits for
         * the store but at a window's end, or when the key asks faster than a lease call takes.
         * The key then holds up to two leases at once (both given back when they end). Default
         * {@code false}.
         */
        public Builder refillAhead(boolean refillAhead) {
            this.refillAhead = refillAhead;
            return this;
        }

        /** Builds the policy. */
        public LeasePolicy build() {
            return new LeasePolicy(this);
        }
    }
}
