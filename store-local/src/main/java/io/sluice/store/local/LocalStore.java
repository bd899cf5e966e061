package io.sluice.store.local;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The in-process store: the state of every key in a Caffeine cache of this JVM. It is the
 * embedded default of {@link io.sluice.api.RateLimiter#builder()} and suits one instance,
 * tests, and a fallback when the shared store is down; instances of a fleet do not share
 * it, so each enforces its limits alone.
 *
 * <pre>{@code
 * Store store = LocalStore.builder().maximumSize(100_000).build();
 * RateLimiter limiter = RateLimiter.builder().limit(limit).store(store).build();
 * }</pre>
 *
 * <p>Each decision is atomic per key: all limits of the key are checked and charged in one
 * step, all-or-nothing, on the store's clock read inside that step. A key's entry is removed
 * once all its limits are fully reset and it has not been admitted for its longest period,
 * so idle keys cost no memory.
 */
public final class LocalStore {

    /** The most keys a store holds by default. */
    public static final long DEFAULT_MAXIMUM_SIZE = 1_000_000;

    private LocalStore() {
    }

    /** Creates a builder with the defaults: {@link #DEFAULT_MAXIMUM_SIZE} keys, the system clock. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a local store. Not thread-safe; the store it builds is. */
    public static final class Builder {

        private long maximumSize = DEFAULT_MAXIMUM_SIZE;
        private @Nullable TimeSource testClock;

        private Builder() {
        }

        /**
         * The most keys the store holds. Beyond it the least useful keys are evicted
         * (Caffeine's W-TinyLFU policy), and an evicted key that comes back starts with
         * unused limits: size it above the number of keys active within your longest
         * period, so that only expired keys are ever removed.
         *
         * @throws IllegalArgumentException when {@code maximumSize} is below 1
         */
        public Builder maximumSize(long maximumSize) {
            if (maximumSize < 1) {
                throw new IllegalArgumentException("maximumSize must be at least 1: " + maximumSize);
            }
            this.maximumSize = maximumSize;
            return this;
        }

        /**
         * Test-only: replaces the store's clock, for decisions and for expiry alike, so that
         * a virtual clock drives both. Never set it from configuration.
         */
        public Builder clockForTesting(TimeSource clock) {
            this.testClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Builds the store. */
        public Store build() {
            TimeSource clock = testClock;
            return new CaffeineStore(maximumSize, clock != null ? clock : CaffeineStore.monotonicClock());
        }
    }
}
