package io.sluice.api;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/** Validates a request, asks the store, and turns a store failure into a decision. */
final class StoreBackedRateLimiter implements RateLimiter {

    private final List<Limit> limits;
    private final Store store;
    private final FailurePolicy failurePolicy;

    StoreBackedRateLimiter(List<Limit> limits, Store store, FailurePolicy failurePolicy) {
        this.limits = limits;
        this.store = store;
        this.failurePolicy = failurePolicy;
    }

    @Override
    public Decision decide(String key, long cost) {
        try {
            return decideAsync(key, cost).toCompletableFuture().join();
        } catch (CompletionException e) {
            return unavailable();
        }
    }

    @Override
    public CompletionStage<Decision> decideAsync(String key, long cost) {
        checkKey(key);
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be at least 1: " + cost);
        }
        CompletionStage<Decision> decision;
        try {
            decision = store.tryAcquire(key, limits, cost);
        } catch (RuntimeException e) {
            // A store that fails before returning a stage is as unavailable as one that fails later.
            return CompletableFuture.completedFuture(unavailable());
        }
        return decision.exceptionally(failure -> unavailable());
    }

    @Override
    public List<Limit> limits() {
        return limits;
    }

    private Decision unavailable() {
        return Decision.storeUnavailable(limits.get(0), failurePolicy == FailurePolicy.FAIL_OPEN);
    }

    static void checkKey(String key) {
        Objects.requireNonNull(key, "key");
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key must be 1-" + MAX_KEY_LENGTH
                    + " characters, was " + key.length());
        }
    }
}
