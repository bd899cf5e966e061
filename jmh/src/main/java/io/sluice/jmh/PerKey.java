package io.sluice.jmh;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.store.local.LocalStore;
import java.time.Duration;
import java.util.function.Function;

/**
 * The per-key map the in-process peers need (Bucket4j, Resilience4j and Guava limit one
 * thing each, not one per client): a Caffeine cache that forgets a key after its longest
 * period of idleness and holds at most as many keys as the local store does by default
 * ({@link LocalStore#DEFAULT_MAXIMUM_SIZE}), so the peers pay for the same bookkeeping. A
 * production per-key map must be bounded (a flood of invented keys), and a bounded cache's
 * read costs more than an unbounded one's (its frequency sketch, its eviction order).
 */
final class PerKey<T> {

    private final Cache<String, T> limiters;
    private final Function<String, T> create;

    PerKey(LimitShape shape, Function<String, T> create) {
        Duration longest = shape.specs().stream().map(LimitShape.Spec::period)
                .max(Duration::compareTo).orElseThrow();
        this.limiters = Caffeine.newBuilder()
                .maximumSize(LocalStore.DEFAULT_MAXIMUM_SIZE)
                .expireAfterAccess(longest)
                .build();
        this.create = create;
    }

    T get(String key) {
        return limiters.get(key, create);
    }

    void clear() {
        limiters.invalidateAll();
    }
}
