package io.sluice.api;

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
 */
public record StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry, boolean leasing,
                                boolean inProcess) {

    /** The capabilities of a store that may lease tokens and decides outside this process. */
    public StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry, boolean leasing) {
        this(serverClock, atomicMultiLimit, expiry, leasing, false);
    }

    /** The capabilities of a store that does not lease tokens and decides outside this process. */
    public StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry) {
        this(serverClock, atomicMultiLimit, expiry, false, false);
    }
}
