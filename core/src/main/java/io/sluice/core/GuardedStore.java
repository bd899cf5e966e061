package io.sluice.core;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.sluice.algorithms.calls.Causes;
import io.sluice.algorithms.calls.Deadlines;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.Algorithm;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One store behind the {@link StoreGuard}'s chain. A request goes, in order, through:
 * <ol>
 *   <li>the block cache: a denial the store gave and that still holds is answered here;</li>
 *   <li>the lease, when {@linkplain StoreGuard.Builder#leasing leasing} is on: a request its
 *       lease covers is admitted here; a busy key whose lease ran out leases a new batch
 *       instead of a single request ({@link LocalLeases});</li>
 *   <li>the circuit breaker: while open, the failure policies answer at once;</li>
 *   <li>the store call, bounded by the timeout;</li>
 *   <li>on failure, each limit's failure policy, the strictest winning: fail-closed denies,
 *       fallback decides in-process on a share of the limit, fail-open admits.</li>
 * </ol>
 * Every decision is metered; every failure is counted and logged at most once a minute. The
 * returned stages never complete exceptionally.
 */
final class GuardedStore implements Store {

    private static final System.Logger LOGGER = System.getLogger(StoreGuard.class.getName());

    private final Store store;
    private final String name;
    private final StoreGuard guard;
    /** Ends the store calls that outlive the timeout: one thread per guarded store, none before its first call. */
    private final Deadlines deadlines;
    private final CircuitBreaker breaker;
    private final @Nullable BlockCache blockCache;
    private final Fallback fallback;
    private final GuardMeters meters;
    private final ThrottledLog failures = new ThrottledLog(LOGGER);
    private final ThrottledLog breakerOpened = new ThrottledLog(LOGGER);
    private final ThrottledLog breakerClosed = new ThrottledLog(LOGGER, Level.INFO);
    /** The breaker's state last logged: see {@link #logBreakerTransition}. */
    private final AtomicReference<CircuitBreaker.State> loggedBreakerState =
            new AtomicReference<>(CircuitBreaker.State.CLOSED);
    private final ThrottledLog returnFailures = new ThrottledLog(LOGGER);
    private final ThrottledLog leaseAheadFailures = new ThrottledLog(LOGGER);
    private final @Nullable LocalLeases leases;
    /** {@link #release} ran: a lease taken ahead that arrives later goes back at once. */
    private volatile boolean released;
    /**
     * Whether a request goes straight to the store: one that decides in this process
     * ({@link StoreCapabilities#inProcess()}) has no slowness or outage for the timeout, the
     * breaker or the block cache to protect from, so they would only cost time. Leasing, when
     * asked for, keeps the whole chain.
     */
    private final boolean direct;
    /**
     * Whether {@link #tryAcquireAndWait} calls the store's own on the caller's thread: the store
     * bounds that wait ({@link StoreCapabilities#waitBound()}) within this guard's timeout, so
     * the guard's timer is not needed, and the caller is woken by the store's answer itself
     * rather than through the stage's chain. Leasing, when asked for, keeps the whole chain.
     */
    private final boolean storeWaits;

    GuardedStore(Store store, StoreGuard guard) {
        this.store = store;
        this.name = guard.storeName != null ? guard.storeName : store.getClass().getSimpleName();
        this.guard = guard;
        this.deadlines = new Deadlines("sluice-guard-timeouts-", guard.timeout);
        this.breaker = CircuitBreaker.of(name, guard.breakerConfig);
        this.blockCache = guard.blockCacheSize == 0 ? null : new BlockCache(guard.blockCacheSize, guard.clock);
        this.fallback = new Fallback(store, guard.instances, guard.clock);
        this.meters = new GuardMeters(guard.meterRegistry, name, guard.nearLimitRatio, breaker, blockCache);
        LeasePolicy leasePolicy = guard.leasePolicy;
        if (leasePolicy != null && !store.capabilities().leasing()) {
            LOGGER.log(Level.WARNING, "leasing is on but store " + name + " does not lease tokens (its capabilities): "
                    + "every request goes to the store");
        }
        this.leases = leasePolicy != null && store.capabilities().leasing()
                ? new LocalLeases(leasePolicy, guard.clock, this::giveBack) : null;
        this.direct = store.capabilities().inProcess() && leases == null;
        Duration waitBound = store.capabilities().waitBound();
        this.storeWaits = !direct && leases == null && !waitBound.isZero() && waitBound.compareTo(guard.timeout) <= 0;
        if (!direct && leases == null && waitBound.compareTo(guard.timeout) > 0) {
            LOGGER.log(Level.INFO, "store " + name + " bounds its wait by " + waitBound + ", longer than the guard's "
                    + "timeout of " + guard.timeout + ": decide() waits for the store's stage under the guard's timer");
        }
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        return tryAcquire(key, limits, cost, false);
    }

    /**
     * Decides a request; {@code shadow} marks limits that report a denial without enforcing it
     * (counted as shadow-denied).
     */
    CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost, boolean shadow) {
        if (direct) {
            return CompletableFuture.completedFuture(decideInProcess(key, limits, cost, shadow));
        }
        long askedAtMicros = guard.clock.nowMicros();
        Decision blocked = blockedByCache(key, limits, cost, shadow, askedAtMicros);
        if (blocked != null) {
            return CompletableFuture.completedFuture(blocked);
        }
        LocalLeases local = leases;
        if (local != null && LocalLeases.leasable(limits)) {
            LocalLeases.Entry entry = local.entry(key, limits);
            Decision leased = entry.spend(cost, askedAtMicros);
            if (leased == null) {
                // Over: its unused tokens go back, and a lease taken ahead, if any, decides in its place.
                giveBackIfAny(entry.endIfOver(cost, askedAtMicros));
                leased = entry.spendLeased(cost, askedAtMicros);
                if (leased == null) {
                    // The lease taken ahead was over too (its window ended meanwhile).
                    giveBackIfAny(entry.endIfOver(cost, askedAtMicros));
                }
            }
            if (leased != null) {
                meters.leaseDecision();
                meters.decision(leased, shadow);
                long ahead = entry.aheadFor(cost, askedAtMicros);
                if (ahead > 0) {
                    leaseAhead(entry, key, limits, ahead, askedAtMicros);
                }
                return CompletableFuture.completedFuture(leased);
            }
            long batch = entry.batchFor(cost, askedAtMicros);
            if (batch > 0) {
                return lease(entry, key, limits, cost, batch, shadow, askedAtMicros);
            }
        }
        return callStore(key, limits, cost, shadow, askedAtMicros);
    }

    /**
     * Decides on the calling thread: without a stage when the store decides in this process or
     * bounds its own wait, else by waiting for {@link #tryAcquire}'s.
     */
    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        return tryAcquireAndWait(key, limits, cost, false);
    }

    /**
     * Decides a request on the calling thread as {@link #tryAcquireAndWait(String, List, long)}
     * does; {@code shadow} as {@link #tryAcquire(String, List, long, boolean)} takes it.
     */
    Decision tryAcquireAndWait(String key, List<Limit> limits, long cost, boolean shadow) {
        if (direct) {
            return decideInProcess(key, limits, cost, shadow);
        }
        return storeWaits ? decideAndWait(key, limits, cost, shadow)
                : tryAcquire(key, limits, cost, shadow).toCompletableFuture().join();
    }

    /** A denial the block cache still holds for this request, metered; {@code null} when none. */
    private @Nullable Decision blockedByCache(String key, List<Limit> limits, long cost, boolean shadow,
                                              long askedAtMicros) {
        Decision blocked = blockCache == null ? null : blockCache.denial(key, limits, cost, askedAtMicros);
        if (blocked != null) {
            meters.blockCacheHit();
            meters.decision(blocked, shadow);
        }
        return blocked;
    }

    /**
     * The path of {@link #tryAcquire} without leases, with the store's own bounded wait in place
     * of the stage and the guard's timer: the block cache, the breaker, the store, the failure
     * policies.
     */
    private Decision decideAndWait(String key, List<Limit> limits, long cost, boolean shadow) {
        long askedAtMicros = guard.clock.nowMicros();
        Decision blocked = blockedByCache(key, limits, cost, shadow, askedAtMicros);
        if (blocked != null) {
            return blocked;
        }
        if (!breaker.tryAcquirePermission()) {
            return shortCircuited(key, limits, cost, shadow);
        }
        long start = System.nanoTime();
        Decision decision;
        try {
            decision = store.tryAcquireAndWait(key, limits, cost);
        } catch (RuntimeException e) {
            return completed(key, limits, cost, shadow, askedAtMicros, start, null, e);
        }
        return completed(key, limits, cost, shadow, askedAtMicros, start, decision, null);
    }

    /**
     * The decision of a store that decides in this process, asked directly; its failures (only
     * once closed, or a defect) are answered by the failure policies, counted and logged, as any
     * store's.
     */
    private Decision decideInProcess(String key, List<Limit> limits, long cost, boolean shadow) {
        Decision decision;
        try {
            decision = store.tryAcquireAndWait(key, limits, cost);
        } catch (RuntimeException e) {
            Throwable cause = Causes.of(e);
            meters.storeError(cause);
            return unavailable(key, limits, cost, shadow, "it failed", cause);
        }
        if (decision.allowed()) {
            fallback.charge(key, limits, cost, guard.defaultPolicy);
        }
        meters.decision(decision, shadow);
        return decision;
    }

    /** The store's decision on one request, through the breaker and the timeout. */
    private CompletionStage<Decision> callStore(String key, List<Limit> limits, long cost, boolean shadow,
                                                long askedAtMicros) {
        if (!breaker.tryAcquirePermission()) {
            return CompletableFuture.completedFuture(shortCircuited(key, limits, cost, shadow));
        }
        long start = System.nanoTime();
        CompletableFuture<Decision> call;
        try {
            call = store.tryAcquire(key, limits, cost).toCompletableFuture();
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        if (call.isDone()) {
            // An in-process store answers at once: no timeout to arm, no stage to chain.
            Decision decision;
            try {
                decision = call.join();
            } catch (CompletionException | CancellationException e) {
                return CompletableFuture.completedFuture(completed(key, limits, cost, shadow, askedAtMicros, start,
                        null, e));
            }
            return CompletableFuture.completedFuture(completed(key, limits, cost, shadow, askedAtMicros, start,
                    decision, null));
        }
        // A copy, so that the timeout completes ours and never the store's own future.
        return deadlines.bound(call).handle((decision, failure) ->
                completed(key, limits, cost, shadow, askedAtMicros, start, decision, failure));
    }

    /** The decision once the store answered ({@code decision}) or failed ({@code failure}). */
    private Decision completed(String key, List<Limit> limits, long cost, boolean shadow, long askedAtMicros,
                               long start, @Nullable Decision decision, @Nullable Throwable failure) {
        if (failure == null && decision != null) {
            callSucceeded(start);
            if (blockCache != null) {
                blockCache.remember(key, limits, cost, askedAtMicros, decision);
            }
            if (decision.allowed()) {
                fallback.charge(key, limits, cost, guard.defaultPolicy);
            }
            meters.decision(decision, shadow);
            return decision;
        }
        Throwable cause = callFailed(start,
                failure == null ? new StoreUnavailableException("the store answered null") : failure);
        return unavailable(key, limits, cost, shadow, whyUnavailable(cause), cause);
    }

    /**
     * Counts a store call that answered, started at {@code start} ({@link System#nanoTime}), on
     * the breaker and the meters.
     */
    private void callSucceeded(long start) {
        long elapsed = System.nanoTime() - start;
        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
        logBreakerTransition();
        meters.storeCall(elapsed, null);
    }

    /**
     * Counts a store call that failed, started at {@code start} ({@link System#nanoTime}), on the
     * breaker and the meters; returns the failure's cause, unwrapped from its stage's wrappers.
     */
    private Throwable callFailed(long start, Throwable failure) {
        long elapsed = System.nanoTime() - start;
        Throwable cause = Causes.of(failure);
        breaker.onError(elapsed, TimeUnit.NANOSECONDS, cause);
        logBreakerTransition();
        meters.storeCall(elapsed, cause);
        return cause;
    }

    /** Why the store could not decide, for the failure log, from the cause {@link #callFailed} returned. */
    private String whyUnavailable(Throwable cause) {
        return cause instanceof TimeoutException
                ? "it did not answer within " + guard.timeout.toMillis() + " ms" : "it failed";
    }

    /** The failure policies' decision while the breaker is open, counted as short-circuited. */
    private Decision shortCircuited(String key, List<Limit> limits, long cost, boolean shadow) {
        meters.shortCircuited();
        return unavailable(key, limits, cost, shadow, "its circuit breaker is open", null);
    }

    /**
     * Logs the breaker's opening and closing, seen after the call that caused it (only a
     * recorded call opens or closes it). Not a listener on the breaker's events: with one,
     * Resilience4j builds an event, with the time of day, for every successful call.
     */
    private void logBreakerTransition() {
        CircuitBreaker.State now = breaker.getState();
        CircuitBreaker.State logged = loggedBreakerState.get();
        if (now == logged || !loggedBreakerState.compareAndSet(logged, now)) {
            return;
        }
        if (now == CircuitBreaker.State.OPEN) {
            breakerOpened.log(() -> "circuit breaker of store " + name + " opened: decisions follow the failure "
                    + "policies without calling the store, which is probed again after the breaker's wait", null);
        } else if (now == CircuitBreaker.State.CLOSED) {
            breakerClosed.log(() -> "circuit breaker of store " + name + " closed: the store decides again", null);
        }
    }

    /**
     * Leases a batch for a request of {@code cost}, through the breaker and the timeout, and
     * decides the request from it: admitted (the rest kept for the key's next requests), or
     * the store's denial when no token was left; a batch smaller than the cost goes back and
     * the request is asked of the store alone.
     */
    private CompletionStage<Decision> lease(LocalLeases.Entry entry, String key, List<Limit> limits, long cost,
                                            long batch, boolean shadow, long askedAtMicros) {
        if (!breaker.tryAcquirePermission()) {
            entry.refillDone();
            return CompletableFuture.completedFuture(shortCircuited(key, limits, cost, shadow));
        }
        long start = System.nanoTime();
        CompletableFuture<Lease> call = leaseBounded(key, limits, batch);
        return call.handle((lease, failure) -> {
            if (failure != null) {
                entry.refillDone();
                Throwable cause = callFailed(start, failure);
                return CompletableFuture.completedFuture(unavailable(key, limits, cost, shadow, whyUnavailable(cause),
                        cause));
            }
            callSucceeded(start);
            meters.leaseRefill(lease.tokens() > 0);
            if (lease.tokens() >= cost) {
                entry.install(lease, askedAtMicros, cost);
                Decision charged = lease.decision();
                Decision decision = Decision.allowed(charged.binding(), charged.remaining() + lease.tokens() - cost,
                        charged.resetAfter().toNanos() / 1_000);
                meters.decision(decision, shadow);
                return CompletableFuture.completedFuture(decision);
            }
            if (lease.tokens() == 0) {
                // The store's denial of one token: a request of cost 1 or more is denied as well, and the
                // key's next requests here until the empty lease ends.
                entry.install(lease, askedAtMicros, cost);
                if (blockCache != null) {
                    blockCache.remember(key, limits, 1, askedAtMicros, lease.decision());
                }
                meters.decision(lease.decision(), shadow);
                return CompletableFuture.completedFuture(lease.decision());
            }
            entry.refillDone();
            giveBack(new LocalLeases.Unused(new LocalLeases.Key(key, limits), lease, lease.tokens()));
            return callStore(key, limits, cost, shadow, askedAtMicros);
        }).thenCompose(Function.identity());
    }

    /**
     * Leases a key's next batch in the background ({@link LeasePolicy.Builder#refillAhead}),
     * through the breaker and the timeout; no request waits for it. A failure counts against
     * the breaker and in the store's errors, and is logged (at most once per interval): the key's
     * requests go to the store once its lease is spent, as without refill ahead. While the
     * breaker refuses calls the lease ahead is skipped.
     */
    private void leaseAhead(LocalLeases.Entry entry, String key, List<Limit> limits, long batch,
                            long askedAtMicros) {
        if (!breaker.tryAcquirePermission()) {
            // Neither counted nor logged on its own: no answer changes (the key's lease still decides), and
            // the cause is seen already: the breaker's opening is logged and its state gauged (BREAKER_STATE),
            // the failures that opened it are in STORE_ERRORS, and once the lease is spent the key's requests
            // are short-circuited, counted and logged as any others (LeasingTest checks what is seen).
            entry.refillDone();
            return;
        }
        long start = System.nanoTime();
        CompletableFuture<Lease> call = leaseBounded(key, limits, batch);
        call.whenComplete((lease, failure) -> {
            if (failure != null) {
                entry.refillDone();
                Throwable cause = callFailed(start, failure);
                leaseAheadFailures.log(() -> "store " + name + " could not lease ahead (" + whyUnavailable(cause)
                        + "); the key's requests ask the store once its lease is spent", cause);
                return;
            }
            callSucceeded(start);
            meters.leaseRefill(lease.tokens() > 0);
            if (released) {
                // The guard gave its leases back already: this one goes back too.
                entry.refillDone();
                giveBackIfAny(lease.tokens() > 0
                        ? new LocalLeases.Unused(new LocalLeases.Key(key, limits), lease, lease.tokens()) : null);
                return;
            }
            entry.installAhead(lease, askedAtMicros);
        });
    }

    /** The store's lease of {@code batch} tokens, bounded by the timeout; a call that throws fails the stage. */
    private CompletableFuture<Lease> leaseBounded(String key, List<Limit> limits, long batch) {
        try {
            return deadlines.bound(store.lease(key, limits, batch));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void giveBackIfAny(LocalLeases.@Nullable Unused unused) {
        if (unused != null) {
            giveBack(unused);
        }
    }

    /**
     * Gives a lease's unused tokens back, asynchronously, while the breaker is closed; tokens
     * not given back (breaker open, a failed call) are counted and logged: they are lost to
     * this key until its limits reset, an under-admission, never an over-admission.
     */
    private CompletableFuture<Void> giveBack(LocalLeases.Unused unused) {
        if (breaker.getState() != CircuitBreaker.State.CLOSED) {
            lost(unused, "its circuit breaker is not closed", null);
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> call;
        try {
            call = deadlines.bound(store.giveBack(unused.key().key(), unused.key().limits(), unused.lease(),
                    unused.tokens()));
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        return call.handle((ignored, failure) -> {
            if (failure == null) {
                meters.leaseReturned(unused.tokens(), true);
            } else {
                lost(unused, "the call failed", Causes.of(failure));
            }
            return null;
        });
    }

    private void lost(LocalLeases.Unused unused, String why, @Nullable Throwable cause) {
        meters.leaseReturned(unused.tokens(), false);
        returnFailures.log(() -> "store " + name + ": unused leased tokens not given back (" + why + "); they are "
                + "lost until the limits reset (under-admission only). Counted in " + StoreGuard.LEASE_RETURNED_TOKENS,
                cause);
    }

    private Decision unavailable(String key, List<Limit> limits, long cost, boolean shadow, String why,
                                 @Nullable Throwable cause) {
        FailurePolicy policy = strictest(limits);
        Decision decision;
        if (policy == FailurePolicy.FAIL_CLOSED) {
            Limit closed = limits.stream()
                    .filter(limit -> limit.failurePolicy().orElse(guard.defaultPolicy) == FailurePolicy.FAIL_CLOSED)
                    .findFirst().orElseThrow();
            decision = Decision.storeUnavailable(closed, false);
        } else if (policy == FailurePolicy.FALLBACK) {
            decision = fallback.decide(key, limits, cost, guard.defaultPolicy);
        } else {
            decision = Decision.storeUnavailable(limits.get(0), true);
        }
        failures.log(() -> "store " + name + " could not decide: " + why + ". Meanwhile fail-closed limits deny, "
                + "fail-open limits admit, and fallback limits decide in this process on 1/" + fallback.instances()
                + " of each limit" + (fallback.knowsInstances() ? ""
                        : " (the number of instances is unknown: each instance enforces whole limits; set it "
                        + "with StoreGuard.Builder.instances)") + ". Decisions: outcome tags of " + StoreGuard.DECISIONS,
                cause);
        meters.decision(decision, shadow);
        return decision;
    }

    private FailurePolicy strictest(List<Limit> limits) {
        FailurePolicy strictest = FailurePolicy.FAIL_OPEN;
        for (Limit limit : limits) {
            FailurePolicy policy = limit.failurePolicy().orElse(guard.defaultPolicy);
            // FailurePolicy is declared strictest first.
            if (policy.compareTo(strictest) < 0) {
                strictest = policy;
            }
        }
        return strictest;
    }

    /** The breaker's state, for operations and tests. */
    CircuitBreaker.State breakerState() {
        return breaker.getState();
    }

    @Override
    public StoreCapabilities capabilities() {
        return store.capabilities();
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return store.supports(algorithm);
    }

    /** Straight to the store, so that a guarded store leases exactly when its store does. */
    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        return store.lease(key, limits, maxTokens);
    }

    /** Straight to the store, like {@link #lease}. */
    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        return store.giveBack(key, limits, lease, unusedTokens);
    }

    @Override
    public void close() {
        release();
        store.close();
    }

    /**
     * Ends the guard and leaves the store open: every lease's unused tokens go back to the
     * store (a graceful shutdown, before the store closes), and the fallback's state is freed.
     */
    void release() {
        released = true;
        LocalLeases local = leases;
        if (local != null) {
            CompletableFuture.allOf(local.endAll().stream().map(this::giveBack).toArray(CompletableFuture[]::new))
                    .join();
        }
        deadlines.close();
        fallback.close();
    }

    @Override
    public String toString() {
        return "guarded " + store;
    }
}
