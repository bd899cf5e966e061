package io.sluice.simulator;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A store that is down for a window of virtual time: every call (a decision, a lease taken
 * or given back) in the {@link Outage} fails
 * with a {@link StoreUnavailableException}, as an unreachable store's would, and every call
 * outside it goes to the real store. It also notes when the store first decided again after
 * the outage, to show how soon a limiter uses the store again.
 */
final class OutageStore implements Store {

    /** No decision by the store after the outage yet. */
    static final long NOT_BACK = -1;

    private final Store store;
    private final TimeSource clock;
    private final long startMicros;
    private final Outage outage;
    // Written in the store's completion, read after the simulation joined that decision.
    private volatile long firstDecisionAfterOutageMicros = NOT_BACK;

    OutageStore(Store store, TimeSource clock, long startMicros, Outage outage) {
        this.store = store;
        this.clock = clock;
        this.startMicros = startMicros;
        this.outage = outage;
    }

    /**
     * Virtual time from the end of the outage to the first decision the store made after it,
     * or {@link #NOT_BACK} when it made none.
     */
    long storeBackAfterMicros() {
        long first = firstDecisionAfterOutageMicros;
        return first == NOT_BACK ? NOT_BACK : first - (startMicros + outage.toMicros());
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        long offset = clock.nowMicros() - startMicros;
        if (outage.covers(offset)) {
            return down(offset);
        }
        CompletionStage<Decision> decision = store.tryAcquire(key, limits, cost);
        if (offset < outage.toMicros() || firstDecisionAfterOutageMicros != NOT_BACK) {
            return decision;
        }
        long now = startMicros + offset;
        // The limiter's stage depends on this one, so the note is written before the decision is seen.
        return decision.thenApply(answer -> {
            if (firstDecisionAfterOutageMicros == NOT_BACK) {
                firstDecisionAfterOutageMicros = now;
            }
            return answer;
        });
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        long offset = clock.nowMicros() - startMicros;
        return outage.covers(offset) ? down(offset) : store.lease(key, limits, maxTokens);
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        long offset = clock.nowMicros() - startMicros;
        return outage.covers(offset) ? down(offset) : store.giveBack(key, limits, lease, unusedTokens);
    }

    private <T> CompletionStage<T> down(long offsetMicros) {
        return CompletableFuture.failedFuture(new StoreUnavailableException(
                "simulated outage " + outage + " at " + DurationConverter.formatMicros(offsetMicros)));
    }

    @Override
    public StoreCapabilities capabilities() {
        return store.capabilities();
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return store.supports(algorithm);
    }

    @Override
    public void close() {
        store.close();
    }
}
