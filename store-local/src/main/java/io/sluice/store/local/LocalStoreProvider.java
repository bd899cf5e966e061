package io.sluice.store.local;

import io.sluice.api.Store;
import io.sluice.api.StoreProvider;

/**
 * Provides the local store, with its defaults, to a {@link io.sluice.api.RateLimiterBuilder}
 * that was given no store. Registered for {@link java.util.ServiceLoader}; applications do
 * not call it.
 */
public final class LocalStoreProvider implements StoreProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public LocalStoreProvider() {
    }

    @Override
    public Store create() {
        return LocalStore.builder().build();
    }
}
