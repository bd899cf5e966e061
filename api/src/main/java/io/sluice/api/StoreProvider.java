package io.sluice.api;

/**
 * Supplies the embedded default store to a {@link RateLimiterBuilder} that was given
 * none. Found with {@link java.util.ServiceLoader}; {@code sluice-store-local} provides one.
 */
public interface StoreProvider {

    /** Creates a new store with default settings. */
    Store create();
}
