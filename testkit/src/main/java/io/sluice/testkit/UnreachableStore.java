package io.sluice.testkit;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A store whose server cannot be reached: every decision fails with a
 * {@link StoreUnavailableException} ("connection refused"), through its stage, or thrown at once
 * by one made with {@link #throwingAtOnce()}. For the tests of what a limiter, the guard or an
 * HTTP layer does while its store is down.
 */
public final class UnreachableStore implements Store {

    private final boolean throwsAtOnce;

    /** A store whose decisions return failed stages, as a client's whose server refuses connections. */
    public UnreachableStore() {
        this(false);
    }

    private UnreachableStore(boolean throwsAtOnce) {
        this.throwsAtOnce = throwsAtOnce;
    }

    /** A store whose decisions throw before they return a stage. */
    public static UnreachableStore throwingAtOnce() {
        return new UnreachableStore(true);
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, true, true);
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return true;
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        StoreUnavailableException down = new StoreUnavailableException("connection refused");
        if (throwsAtOnce) {
            throw down;
        }
        return CompletableFuture.failedFuture(down);
    }

    @Override
    public void close() {
    }
}
