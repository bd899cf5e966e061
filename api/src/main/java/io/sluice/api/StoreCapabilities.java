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
 */
public record StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry, boolean leasing) {

    /** The capabilities of a store that does not lease tokens. */
    public StoreCapabilities(boolean serverClock, boolean atomicMultiLimit, boolean expiry) {
        this(serverClock, atomicMultiLimit, expiry, false);
    }
}
