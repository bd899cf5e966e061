package io.sluice.core;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.sluice.api.Decision;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The meters of one guarded store (names in {@link StoreGuard}). Without a registry every
 * method returns at once: no registry, no cost. Tags are rules (limit names), outcomes and
 * the store: never a client.
 */
final class GuardMeters {

    /** A decision's outcome, the {@code outcome} tag of {@link StoreGuard#DECISIONS}. */
    enum Outcome {
        ALLOWED("allowed"), DENIED("denied"), SHADOW_DENIED("shadow-denied"),
        FALLBACK_ALLOWED("fallback-allowed"), FALLBACK_DENIED("fallback-denied"),
        UNAVAILABLE_ALLOWED("unavailable-allowed"), UNAVAILABLE_DENIED("unavailable-denied");

        final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        static Outcome of(Decision decision, boolean shadow) {
            switch (decision.reason()) {
                case WITHIN_LIMIT:
                    return ALLOWED;
                case FALLBACK:
                    return decision.allowed() ? FALLBACK_ALLOWED : FALLBACK_DENIED;
                case STORE_UNAVAILABLE:
                    return decision.allowed() ? UNAVAILABLE_ALLOWED : UNAVAILABLE_DENIED;
                default:
                    return shadow ? SHADOW_DENIED : DENIED;
            }
        }
    }

    private final @Nullable Registered registered;

    GuardMeters(@Nullable MeterRegistry registry, String store, double nearLimitRatio, CircuitBreaker breaker,
                @Nullable BlockCache blockCache) {
        this.registered = registry == null ? null
                : new Registered(registry, Tags.of("store", store), nearLimitRatio, breaker, blockCache);
    }

    void decision(Decision decision, boolean shadow) {
        Registered meters = registered;
        if (meters != null) {
            meters.decision(decision, shadow);
        }
    }

    void storeCall(long nanos, @Nullable Throwable failure) {
        Registered meters = registered;
        if (meters != null) {
            meters.latency.record(nanos, TimeUnit.NANOSECONDS);
            if (failure != null) {
                storeError(failure);
            }
        }
    }

    /**
     * A failed store call, without its time: a store that decides in process is not timed. A
     * timeout is the guard's, or the store's own (its failure caused by one).
     */
    void storeError(Throwable failure) {
        Registered meters = registered;
        if (meters != null) {
            boolean timeout = failure instanceof TimeoutException || failure.getCause() instanceof TimeoutException;
            (timeout ? meters.timeouts : meters.errors).increment();
        }
    }

    void shortCircuited() {
        Registered meters = registered;
        if (meters != null) {
            meters.shortCircuited.increment();
        }
    }

    void leaseDecision() {
        Registered meters = registered;
        if (meters != null) {
            meters.leaseDecisions.increment();
        }
    }

    void leaseRefill(boolean granted) {
        Registered meters = registered;
        if (meters != null) {
            (granted ? meters.leaseGranted : meters.leaseEmpty).increment();
        }
    }

    void leaseReturned(long tokens, boolean returned) {
        Registered meters = registered;
        if (meters != null) {
            (returned ? meters.leaseReturned : meters.leaseLost).increment(tokens);
        }
    }

    void blockCacheHit() {
        Registered meters = registered;
        if (meters != null && meters.blockCacheHits != null) {
            meters.blockCacheHits.increment();
        }
    }

    /** The meters, once a registry is given. */
    private static final class Registered {

        /**
         * One rule's counters, registered at their first use: a decision finds its counter by
         * the rule's name and the outcome's index, with no tags built and nothing allocated.
         */
        private static final class RuleCounters {

            private final AtomicReferenceArray<@Nullable Counter> decisions =
                    new AtomicReferenceArray<>(Outcome.values().length);
            private volatile @Nullable Counter nearLimit;
        }

        private final MeterRegistry registry;
        private final Tags storeTag;
        private final double nearLimitRatio;
        private final ConcurrentMap<String, RuleCounters> rules = new ConcurrentHashMap<>();
        private final Timer latency;
        private final Counter timeouts;
        private final Counter errors;
        private final Counter shortCircuited;
        private final @Nullable Counter blockCacheHits;
        private final Counter leaseDecisions;
        private final Counter leaseGranted;
        private final Counter leaseEmpty;
        private final Counter leaseReturned;
        private final Counter leaseLost;

        Registered(MeterRegistry registry, Tags storeTag, double nearLimitRatio, CircuitBreaker breaker,
                   @Nullable BlockCache blockCache) {
            this.registry = registry;
            this.storeTag = storeTag;
            this.nearLimitRatio = nearLimitRatio;
            latency = Timer.builder(StoreGuard.STORE_LATENCY).tags(storeTag)
                    .description("Time of each store call, successful or not").register(registry);
            timeouts = Counter.builder(StoreGuard.STORE_ERRORS).tags(storeTag).tag("cause", "timeout")
                    .description("Store calls that failed").register(registry);
            errors = Counter.builder(StoreGuard.STORE_ERRORS).tags(storeTag).tag("cause", "failure")
                    .description("Store calls that failed").register(registry);
            shortCircuited = Counter.builder(StoreGuard.STORE_SHORT_CIRCUITED).tags(storeTag)
                    .description("Decisions made without calling the store because its circuit breaker was open")
                    .register(registry);
            leaseDecisions = Counter.builder(StoreGuard.LEASE_DECISIONS).tags(storeTag)
                    .description("Decisions served from a lease, without a store call").register(registry);
            leaseGranted = Counter.builder(StoreGuard.LEASE_REFILLS).tags(storeTag).tag("outcome", "granted")
                    .description("Lease calls to the store").register(registry);
            leaseEmpty = Counter.builder(StoreGuard.LEASE_REFILLS).tags(storeTag).tag("outcome", "empty")
                    .description("Lease calls to the store").register(registry);
            leaseReturned = Counter.builder(StoreGuard.LEASE_RETURNED_TOKENS).tags(storeTag).tag("outcome", "returned")
                    .description("Unused leased tokens given back to the store, or lost when that failed")
                    .register(registry);
            leaseLost = Counter.builder(StoreGuard.LEASE_RETURNED_TOKENS).tags(storeTag).tag("outcome", "lost")
                    .description("Unused leased tokens given back to the store, or lost when that failed")
                    .register(registry);
            for (CircuitBreaker.State state : new CircuitBreaker.State[] {
                CircuitBreaker.State.CLOSED, CircuitBreaker.State.OPEN, CircuitBreaker.State.HALF_OPEN}) {
                Gauge.builder(StoreGuard.BREAKER_STATE, breaker, b -> b.getState() == state ? 1 : 0).tags(storeTag)
                        .tag("state", state.name().toLowerCase().replace('_', '-'))
                        .description("1 for the store's circuit breaker's current state, 0 for the others")
                        .register(registry);
            }
            if (blockCache == null) {
                blockCacheHits = null;
            } else {
                blockCacheHits = Counter.builder(StoreGuard.BLOCK_CACHE_HITS).tags(storeTag)
                        .description("Denials answered from the block cache, without a store call").register(registry);
                Gauge.builder(StoreGuard.BLOCK_CACHE_SIZE, blockCache, BlockCache::size).tags(storeTag)
                        .description("Keys the block cache holds (estimate)").register(registry);
            }
        }

        void decision(Decision decision, boolean shadow) {
            String rule = decision.binding().name();
            Outcome outcome = Outcome.of(decision, shadow);
            RuleCounters counters = rules.get(rule);
            if (counters == null) {
                counters = rules.computeIfAbsent(rule, name -> new RuleCounters());
            }
            Counter decided = counters.decisions.get(outcome.ordinal());
            if (decided == null) {
                // Registering is idempotent: two threads that race here get the same counter.
                decided = Counter.builder(StoreGuard.DECISIONS).tags(storeTag).tag("rule", rule)
                        .tag("outcome", outcome.tag).description("Decisions by binding rule and outcome")
                        .register(registry);
                counters.decisions.set(outcome.ordinal(), decided);
            }
            decided.increment();
            if (outcome == Outcome.ALLOWED && decision.limit() - decision.remaining() >= decision.limit() * nearLimitRatio) {
                Counter near = counters.nearLimit;
                if (near == null) {
                    near = Counter.builder(StoreGuard.NEAR_LIMIT).tags(storeTag).tag("rule", rule)
                            .description("Admitted decisions that left the rule at or past the near-limit ratio "
                                    + "of its capacity").register(registry);
                    counters.nearLimit = near;
                }
                near.increment();
            }
        }
    }
}
