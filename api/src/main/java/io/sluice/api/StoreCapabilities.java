package io.sluice.api;

import java.time.Duration;
import java.util.Objects;

/**
 * What a store guarantees, so that callers and the conformance kit know what to expect
 * from it rather than skipping what it lacks.
 *
 * @param serverClock decisions use the store's own clock (Redis {@code TIME}, the owning
 *     member's clock), not the caller's
 * @param atomicMultiLimit all limits of one key are checked and charged in one atomic
 *     step, all-or-nothing
 * @param expiry idle state is removed once its limits are fully reset, so memory is
 *     bounded by active keys
 * @param leasing the store implements {@link Store#lease} and {@link Store#giveBack}, so
 *     instances can spend batches of tokens locally
 * @param inProcess the store decides in this process, on the calling thread: its stages are
 *     complete when returned and {@link Store#tryAcquireAndWait} never waits, it has no server that can
 *     be slow or down, and it fails only once closed (or on a defect). A {@link StoreLayer}
 *     may then call it directly, without a timeout, circuit breaker or block cache, which
 *     protect a store from slowness and outages it cannot have. Never set it for a store that
 *     waits for anything outside the process.
 * @param waitBound the longest {@link Store#tryAcquireAndWait} holds its caller: the store
 *     times its own wait (its timeout) and then fails with a {@link StoreUnavailableException},
 *     whatever its servers do, so a {@link StoreLayer} whose timeout is at least this long may
 *     call it on the caller's thread instead of waiting for {@link Store#tryAcquire}'s stage
 *     under a timer of its own. {@link Duration#ZERO} when the store does not bound that wait
 *     (the default {@code tryAcquireAndWait} waits for the stage without a timeout).
 */
public record StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry, boolean leasing,
                                boolean inProcess, Duration waitBound) {

    /**
     * Checks the bound.
     *
     * @throws IllegalArgumentException when {@code waitBound} is negative
     */
    public StoreCapabilities {
        Objects.requireNonNull(waitBound, "waitBound");
        if (waitBound.isNegative()) {
            throw new IllegalArgumentException("waitBound must not be negative: " + waitBound);
        }
    }

    /** The capabilities of a store that does not bound its {@link Store#tryAcquireAndWait}. */
    public StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry, boolean leasing,
                             boolean inProcess) {
        this(serverClock, atomicMultiLimit, expiry, leasing, inProcess, Duration.ZERO);
    }

    /** The capabilities of a store that may lease tokens and decides outside this process. */
    public StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry, boolean leasing) {
        this(serverClock, atomicMultiLimit, expiry, leasing, false);
    }

    /** The capabilities of a store that does not lease tokens and decides outside this process. */
    public StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry) {
        this(serverClock, atomicMultiLimit, expiry, false, false);
    }
}
