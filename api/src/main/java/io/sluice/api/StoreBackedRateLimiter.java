package io.sluice.api;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Validates a request and asks the store, which is normally wrapped by a {@link StoreLayer}
 * that answers store failures itself (counted, logged, by each limit's failure policy). A
 * failure that still arrives here (no layer on the class path) is answered with
 * {@link Decision.Reason#STORE_UNAVAILABLE} and logged at most once a minute, never silently.
 */
final class StoreBackedRateLimiter implements RateLimiter {

    private static final System.Logger LOGGER = System.getLogger(RateLimiter.class.getName());
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final List<Limit> limits;
    private final Store store;
    private final boolean admitWhenUnavailable;
    private final AtomicLong nextLogNanos = new AtomicLong(System.nanoTime());

    StoreBackedRateLimiter(List<Limit> limits, Store store, FailurePolicy failurePolicy) {
        this.limits = limits;
        this.store = store;
        // Only when every limit fails open; an in-process fallback needs the layer, so without it deny.
        this.admitWhenUnavailable = limits.stream().allMatch(
                limit -> limit.failurePolicy().orElse(failurePolicy) == FailurePolicy.FAIL_OPEN);
    }

    @Override
    public Decision decide(String key, long cost) {
        check(key, cost);
        try {
            // No stage: a store that decides in process answers on this thread (Store.tryAcquireAndWait).
            return store.tryAcquireAndWait(key, limits, cost);
        } catch (RuntimeException e) {
            return unavailable(e);
        }
    }

    @Override
    public CompletionStage<Decision> decideAsync(String key, long cost) {
        check(key, cost);
        CompletionStage<Decision> decision;
        try {
            decision = store.tryAcquire(key, limits, cost);
        } catch (RuntimeException e) {
            // A store that fails before returning a stage is as unavailable as one that fails later.
            return CompletableFuture.completedFuture(unavailable(e));
        }
        return decision.exceptionally(this::unavailable);
    }

    @Override
    public List<Limit> limits() {
        return limits;
    }

    private Decision unavailable(Throwable failure) {
        long now = System.nanoTime();
        long next = nextLogNanos.get();
        if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + LOG_INTERVAL_NANOS)) {
            LOGGER.log(Level.WARNING, "store " + store + " failed; requests are "
                    + (admitWhenUnavailable ? "admitted" : "denied") + " meanwhile (logged at most once a minute; "
                    + "add sluice-core for timeouts, a circuit breaker, the fallback and metrics)", failure);
        }
        return Decision.storeUnavailable(limits.get(0), admitWhenUnavailable);
    }

    private static void check(String key, long cost) {
        Objects.requireNonNull(key, "key");
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key must be 1-" + MAX_KEY_LENGTH
                    + " characters, was " + key.length());
        }
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
    }
}
