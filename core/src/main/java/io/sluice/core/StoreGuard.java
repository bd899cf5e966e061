package io.sluice.core;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Store;
import io.sluice.api.StoreLayer;
import io.sluice.api.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The layer every request passes through on its way to a store, for
 * {@link io.sluice.api.RateLimiter} and {@link PolicyLimiter} alike: the block cache, then a
 * circuit breaker (Resilience4j) and a timeout around the store call, then each limit's
 * {@linkplain FailurePolicy failure policy} (with the in-process fallback) when the store
 * cannot decide, and Micrometer meters throughout. Immutable; each {@link #wrap} guards one
 * store with a breaker, block cache and fallback of its own, so wrap a store once and share
 * the result.
 *
 * <pre>{@code
 * StoreGuard guard = StoreGuard.custom().instances(20).meterRegistry(registry).build();
 * RateLimiter limiter = RateLimiter.builder().limit(limit.withFailurePolicy(FailurePolicy.FALLBACK))
 *         .store(redis).layer(guard).build();
 * }</pre>
 *
 * <p>{@link io.sluice.api.RateLimiterBuilder} finds this class through
 * {@link java.util.ServiceLoader} when given no layer, and uses its defaults
 * ({@link #StoreGuard()}). See docs/operations.md for the defaults' reasons and the bounds.
 */
public final class StoreGuard implements StoreLayer {

    /** The timeout of a store call unless {@link Builder#timeout} sets another. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);
    /** How long an open breaker answers without calling the store before it probes it. */
    public static final Duration DEFAULT_WAIT_IN_OPEN_STATE = Duration.ofMillis(500);
    /** Block-cache entries unless {@link Builder#blockCacheSize} sets another number. */
    public static final long DEFAULT_BLOCK_CACHE_SIZE = 100_000;
    /** Admitted decisions that leave at most 20% of a limit are counted as near the limit. */
    public static final double DEFAULT_NEAR_LIMIT_RATIO = 0.8;

    /** Counter of decisions; tags {@code store}, {@code rule} (the binding limit's name), {@code outcome}. */
    public static final String DECISIONS = "sluice.decisions";
    /** Counter of admitted decisions at or past the near-limit ratio; tags {@code store}, {@code rule}. */
    public static final String NEAR_LIMIT = "sluice.decisions.near.limit";
    /** Timer of store calls; tag {@code store}. */
    public static final String STORE_LATENCY = "sluice.store.latency";
    /** Counter of failed store calls; tags {@code store}, {@code cause} ({@code timeout}, {@code failure}). */
    public static final String STORE_ERRORS = "sluice.store.errors";
    /** Counter of decisions made without a store call because the breaker was open; tag {@code store}. */
    public static final String STORE_SHORT_CIRCUITED = "sluice.store.short.circuited";
    /** Gauge, 1 for the breaker's current state and 0 for the others; tags {@code store}, {@code state}. */
    public static final String BREAKER_STATE = "sluice.store.breaker.state";
    /** Counter of denials answered from the block cache; tag {@code store}. */
    public static final String BLOCK_CACHE_HITS = "sluice.block.cache.hits";
    /** Gauge of the block cache's entries; tag {@code store}. */
    public static final String BLOCK_CACHE_SIZE = "sluice.block.cache.size";
    /** Counter of lease calls (refills); tags {@code store}, {@code outcome} ({@code granted}, {@code empty}). */
    public static final String LEASE_REFILLS = "sluice.lease.refills";
    /** Counter of decisions served from a lease, without a store call; tag {@code store}. */
    public static final String LEASE_DECISIONS = "sluice.lease.decisions";
    /** Counter of unused leased tokens given back; tags {@code store}, {@code outcome} ({@code returned}, {@code lost}). */
    public static final String LEASE_RETURNED_TOKENS = "sluice.lease.returned.tokens";

    final Duration timeout;
    final CircuitBreakerConfig breakerConfig;
    final long blockCacheSize;
    final int instances;
    final FailurePolicy defaultPolicy;
    final @Nullable MeterRegistry meterRegistry;
    final double nearLimitRatio;
    final @Nullable String storeName;
    final TimeSource clock;
    final @Nullable LeasePolicy leasePolicy;

    /**
     * The defaults: {@link #DEFAULT_TIMEOUT}, the {@linkplain Builder#circuitBreaker default
     * breaker}, a block cache of {@link #DEFAULT_BLOCK_CACHE_SIZE} entries, the number of
     * instances from the store if it can tell, no metrics. Public for
     * {@link java.util.ServiceLoader}; applications call {@link #custom()}.
     */
    public StoreGuard() {
        this(new Builder());
    }

    private StoreGuard(Builder builder) {
        this.timeout = builder.timeout;
        this.clock = builder.clock;
        CircuitBreakerConfig base = builder.breakerConfig != null ? builder.breakerConfig
                : defaultBreakerConfig(builder.timeout);
        this.breakerConfig = CircuitBreakerConfig.from(base).clock(clockOf(builder.clock)).build();
        this.blockCacheSize = builder.blockCacheSize;
        this.instances = builder.instances;
        this.defaultPolicy = builder.defaultPolicy;
        this.meterRegistry = builder.meterRegistry;
        this.nearLimitRatio = builder.nearLimitRatio;
        this.storeName = builder.storeName;
        this.leasePolicy = builder.leasePolicy;
    }

    /** This guard with {@code leasing} as its lease policy: a policy file's {@code leasing} section. */
    StoreGuard withLeasing(LeasePolicy leasing) {
        return new StoreGuard(this, leasing);
    }

    private StoreGuard(StoreGuard guard, LeasePolicy leasing) {
        this.timeout = guard.timeout;
        this.clock = guard.clock;
        this.breakerConfig = guard.breakerConfig;
        this.blockCacheSize = guard.blockCacheSize;
        this.instances = guard.instances;
        this.defaultPolicy = guard.defaultPolicy;
        this.meterRegistry = guard.meterRegistry;
        this.nearLimitRatio = guard.nearLimitRatio;
        this.storeName = guard.storeName;
        this.leasePolicy = leasing;
    }

    /** A builder starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    @Override
    public Store wrap(Store store) {
        return guard(store);
    }

    GuardedStore guard(Store store) {
        Objects.requireNonNull(store, "store");
        return new GuardedStore(store, this);
    }

    /**
     * The breaker unless {@link Builder#circuitBreaker} sets one: over the last 20 calls (once
     * there are 10), it opens when half failed or half took longer than half the timeout;
     * open, it answers without calling the store for {@link #DEFAULT_WAIT_IN_OPEN_STATE},
     * then lets 3 probes through, and closes when they succeed.
     */
    static CircuitBreakerConfig defaultBreakerConfig(Duration timeout) {
        return CircuitBreakerConfig.custom()
                .slidingWindow(20, 10, CircuitBreakerConfig.SlidingWindowType.COUNT_BASED,
                        // Every decision records its call: no lock for the threads to queue on.
                        CircuitBreakerConfig.SlidingWindowSynchronizationStrategy.LOCK_FREE)
                .failureRateThreshold(50)
                .slowCallRateThreshold(50)
                .slowCallDurationThreshold(timeout.dividedBy(2))
                .waitDurationInOpenState(DEFAULT_WAIT_IN_OPEN_STATE)
                .permittedNumberOfCallsInHalfOpenState(3)
                .build();
    }

    /** The guard's clock as the breaker's, so that a virtual clock moves the breaker's waits too. */
    private static Clock clockOf(TimeSource source) {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                throw new UnsupportedOperationException("the breaker's clock is UTC");
            }

            @Override
            public Instant instant() {
                return Instant.EPOCH.plus(source.nowMicros(), ChronoUnit.MICROS);
            }
        };
    }

    /** Builds a {@link StoreGuard}. Not thread-safe; the guard it builds is. */
    public static final class Builder {

        private Duration timeout = DEFAULT_TIMEOUT;
        private @Nullable CircuitBreakerConfig breakerConfig;
        private long blockCacheSize = DEFAULT_BLOCK_CACHE_SIZE;
        private int instances;
        private FailurePolicy defaultPolicy = FailurePolicy.FAIL_CLOSED;
        private @Nullable MeterRegistry meterRegistry;
        private double nearLimitRatio = DEFAULT_NEAR_LIMIT_RATIO;
        private @Nullable String storeName;
        private TimeSource clock = TimeSource.system();
        private @Nullable LeasePolicy leasePolicy;

        private Builder() {
        }

        /**
         * Turns local quota leasing on (off by default): busy keys are decided from batches of
         * tokens leased from the store, without a store call per request, when the store's
         * capabilities say {@code leasing} and every limit of the request can be leased (not
         * a sliding log). Leasing never over-admits; see {@link LeasePolicy} for what it costs.
         */
        public Builder leasing(LeasePolicy policy) {
            this.leasePolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The longest a decision waits for the store; then the limits' failure policies
         * answer. A timed-out call may still run in the store (and charge the request).
         *
         * @throws IllegalArgumentException when not positive
         */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * The circuit breaker's settings instead of the {@linkplain #defaultBreakerConfig
         * default}; its clock is replaced by the guard's.
         */
        public Builder circuitBreaker(CircuitBreakerConfig config) {
            this.breakerConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * The most denials the block cache holds (least recently used ones go first), or 0 to
         * ask the store every time.
         *
         * @throws IllegalArgumentException when negative
         */
        public Builder blockCacheSize(long entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("blockCacheSize must be 0 or more: " + entries);
            }
            this.blockCacheSize = entries;
            return this;
        }

        /**
         * How many instances share the store: the {@link FailurePolicy#FALLBACK} gives each
         * 1/instances of every limit. Unset, a store that is an {@link io.sluice.api.InstanceCount}
         * tells; else each instance enforces whole limits (and a warning says so).
         *
         * @throws IllegalArgumentException when below 1
         */
        public Builder instances(int instances) {
            if (instances < 1) {
                throw new IllegalArgumentException("instances must be at least 1: " + instances);
            }
            this.instances = instances;
            return this;
        }

        /**
         * The failure policy of limits that carry none ({@link io.sluice.api.RateLimiterBuilder}
         * and policy files give each limit one); {@link FailurePolicy#FAIL_CLOSED} by default.
         */
        public Builder defaultFailurePolicy(FailurePolicy policy) {
            this.defaultPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Where the meters go; none by default, at no cost. */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * The share of a limit's capacity used at which an admitted decision counts as near
         * the limit ({@link #NEAR_LIMIT}).
         *
         * @throws IllegalArgumentException when outside 0..1
         */
        public Builder nearLimitRatio(double ratio) {
            if (!(ratio >= 0 && ratio <= 1)) {
                throw new IllegalArgumentException("nearLimitRatio must be in 0..1: " + ratio);
            }
            this.nearLimitRatio = ratio;
            return this;
        }

        /** The {@code store} tag of the meters and the name in logs; the store's class name by default. */
        public Builder storeName(String name) {
            this.storeName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Test-only: the clock of the block cache, the breaker's waits and the fallback, so
         * that a virtual clock (the store's own test clock) drives them. Never set it from
         * configuration. Timeouts stay in real time.
         */
        public Builder clockForTesting(TimeSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Builds the guard. */
        public StoreGuard build() {
            return new StoreGuard(this);
        }
    }
}
