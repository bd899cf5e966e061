package io.sluice.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.TimeSource;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Denials the store gave, kept until their retry-after, so that the same key is denied here
 * without a store call meanwhile. Never wrong: until then the store would deny too, since
 * other instances can only consume more. A denial of cost c says nothing about a smaller
 * cost, so only requests of cost c or more are answered from it. Bounded by Caffeine.
 */
final class BlockCache {

    /** A key under one list of limits: another list (another endpoint) is another entry. */
    private record Key(String key, List<Limit> limits) {
    }

    /**
     * Requests of {@code minCost} or more are denied until {@code untilMicros}.
     * {@code resetAtMicros} and {@code remaining} are the denial's, for its headers.
     */
    private record Block(long minCost, long untilMicros, Limit binding, long remaining, long resetAtMicros) {
    }

    private final Cache<Key, Block> blocks;

    BlockCache(long maximumSize, TimeSource clock) {
        this.blocks = Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .expireAfter(new UntilRetry())
                .ticker(() -> clock.nowMicros() * 1_000)
                // Maintenance on the calling threads, not the common pool (as in the local store).
                .executor(Runnable::run)
                .build();
    }

    /** The denial to answer without asking the store, or {@code null} when the store must decide. */
    @Nullable Decision denial(String key, List<Limit> limits, long cost, long nowMicros) {
        Block block = blocks.getIfPresent(new Key(key, limits));
        if (block == null || cost < block.minCost || nowMicros >= block.untilMicros) {
            return null;
        }
        return Decision.limitExceeded(block.binding, block.remaining,
                Math.max(0, block.resetAtMicros - nowMicros), block.untilMicros - nowMicros);
    }

    /**
     * Remembers the store's {@code decision} on a request sent at {@code askedAtMicros} (before
     * the store decided, so the block ends no later than the store's retry-after does).
     */
    void remember(String key, List<Limit> limits, long cost, long askedAtMicros, Decision decision) {
        if (decision.reason() != Decision.Reason.LIMIT_EXCEEDED) {
            return;
        }
        long retryAfterMicros = decision.retryAfter().map(wait -> wait.toNanos() / 1_000).orElse(0L);
        if (retryAfterMicros <= 0) {
            return;
        }
        blocks.put(new Key(key, limits), new Block(cost, askedAtMicros + retryAfterMicros, decision.binding(),
                decision.remaining(), askedAtMicros + decision.resetAfter().toNanos() / 1_000));
    }

    long size() {
        return blocks.estimatedSize();
    }

    /** An entry lives until its block ends. */
    private static final class UntilRetry implements Expiry<Key, Block> {

        @Override
        public long expireAfterCreate(Key key, Block block, long currentTimeNanos) {
            return Math.max(0, block.untilMicros * 1_000 - currentTimeNanos);
        }

        @Override
        public long expireAfterUpdate(Key key, Block block, long currentTimeNanos, long currentDurationNanos) {
            return expireAfterCreate(key, block, currentTimeNanos);
        }

        @Override
        public long expireAfterRead(Key key, Block block, long currentTimeNanos, long currentDurationNanos) {
            return currentDurationNanos;
        }
    }
}
