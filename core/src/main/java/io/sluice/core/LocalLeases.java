package io.sluice.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.sluice.algorithms.Leasing;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.TimeSource;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The leases one instance holds, one per key and list of limits, with each key's recent rate
 * here, which sizes the next batch. Bounded by Caffeine; a key dropped gives its lease back.
 *
 * <p>A lease is spent until its tokens run out or its end, the earliest of: the policy's
 * length; the end of the window it was charged in (a token charged to one window is never
 * spent in the next); the time its binding limit would be fully reset (a bucket refilled to
 * capacity while tokens were out would give them twice). The end is measured on this
 * instance's clock from before the lease call, so it comes no later than the store's.
 */
final class LocalLeases {

    /** A key under one list of limits, as in the block cache. */
    record Key(String key, List<Limit> limits) {
    }

    /** Unused tokens of an ended lease, for the store. */
    record Unused(Key key, Lease lease, long tokens) {
    }

    /** Where ended leases' unused tokens go: the guarded store's give-back call. */
    interface GiveBack {
        void giveBack(Unused unused);
    }

    private final LeasePolicy policy;
    private final TimeSource clock;
    private final Cache<Key, Entry> entries;

    LocalLeases(LeasePolicy policy, TimeSource clock, GiveBack giveBack) {
        this.policy = policy;
        this.clock = clock;
        this.entries = Caffeine.newBuilder()
                .maximumSize(policy.maxKeys)
                .executor(Runnable::run)
                .removalListener((@Nullable Key key, @Nullable Entry entry, RemovalCause cause) -> {
                    if (key != null && entry != null && cause.wasEvicted()) {
                        Unused unused = entry.end();
                        if (unused != null) {
                            giveBack.giveBack(unused);
                        }
                    }
                })
                .build();
    }

    /** Whether requests on these limits can be leased at all (no sliding log, no algorithm of your own). */
    static boolean leasable(List<Limit> limits) {
        return Leasing.supportsAll(limits);
    }

    /** The entry of a key under these limits, created on first sight. */
    Entry entry(String key, List<Limit> limits) {
        return entries.get(new Key(key, limits), k -> new Entry(k, policy));
    }

    /** Ends every lease and returns their unused tokens, for a graceful shutdown. */
    List<Unused> endAll() {
        List<Unused> all = new ArrayList<>();
        for (Entry entry : entries.asMap().values()) {
            Unused unused = entry.end();
            if (unused != null) {
                all.add(unused);
            }
        }
        entries.invalidateAll();
        return all;
    }

    long size() {
        return entries.estimatedSize();
    }

    TimeSource clock() {
        return clock;
    }

    /** One key's lease and rate on this instance; every method runs under its monitor. */
    static final class Entry {

        private final Key key;
        /** The lease length for these limits, in microseconds. */
        private final long lengthMicros;
        /** The largest batch for these limits. */
        private final long cap;
        private final long minTokens;

        private @Nullable Lease lease;
        private long left;
        private long endsAtMicros;
        /** When the lease's binding limit is fully reset, had nothing else been charged: for the headers. */
        private long resetAtMicros;
        /** A lease call for this key is in flight: requests meanwhile go to the store. */
        private boolean refilling;

        /** Tokens asked for in the current rate window (one lease length) and when it began. */
        private long windowTokens;
        private long windowStartMicros = Long.MIN_VALUE;
        /** Tokens asked per lease length, averaged over the windows seen. */
        private long perLength;

        Entry(Key key, LeasePolicy policy) {
            this.key = key;
            long shortest = Long.MAX_VALUE;
            long smallest = Long.MAX_VALUE;
            for (Limit limit : key.limits()) {
                shortest = Math.min(shortest, limit.periodMicros());
                smallest = Math.min(smallest, limit.burst());
            }
            this.lengthMicros = Math.max(1, (long) (shortest * policy.lengthShare));
            this.cap = Math.max(1, (long) (smallest * policy.share));
            this.minTokens = policy.minTokens;
        }

        /**
         * Spends {@code cost} of the lease if it covers it: the decision, or {@code null} when
         * the store must be asked. Counts the request in the key's rate either way.
         */
        synchronized @Nullable Decision spend(long cost, long nowMicros) {
            observe(cost, nowMicros);
            Lease held = lease;
            if (held == null || nowMicros >= endsAtMicros || left < cost) {
                return null;
            }
            left -= cost;
            Decision charged = held.decision();
            return Decision.allowed(charged.binding(), charged.remaining() + left,
                    Math.max(0, resetAtMicros - nowMicros));
        }

        /**
         * Ends the lease when it cannot serve a request of {@code cost} at {@code nowMicros}
         * (ended, or too few tokens left): its unused tokens, or {@code null} when there are none
         * or the lease still runs.
         */
        synchronized @Nullable Unused endIfOver(long cost, long nowMicros) {
            if (lease == null || (nowMicros < endsAtMicros && left >= cost)) {
                return null;
            }
            return end();
        }

        /**
         * Says how many tokens to lease now that the store must be asked: 0 when this key is not busy enough here, a
         * request's cost does not fit a batch, or a lease call is already in flight.
         */
        synchronized long batchFor(long cost) {
            if (refilling || cost > cap || Math.max(perLength, windowTokens) < minTokens) {
                return 0;
            }
            refilling = true;
            return Math.min(cap, Math.max(cost, Math.max(perLength, windowTokens)));
        }

        /**
         * The unused tokens of the lease, which is over, or {@code null} when none are held.
         * Called before a new lease is taken and when the key is dropped.
         */
        synchronized @Nullable Unused end() {
            Lease held = lease;
            long unused = left;
            lease = null;
            left = 0;
            return held != null && unused > 0 ? new Unused(key, held, unused) : null;
        }

        /**
         * Installs a lease the store granted for a request of {@code cost}, which it covers,
         * and spends that cost.
         *
         * @param askedAtMicros this instance's clock before the lease call
         */
        synchronized void install(Lease granted, long askedAtMicros, long cost) {
            refilling = false;
            lease = granted;
            left = granted.tokens() - cost;
            long windowLeft = Leasing.spendableUntil(key.limits(), granted.takenAtMicros()) - granted.takenAtMicros();
            long resetAfter = granted.decision().resetAfter().toNanos() / 1_000;
            endsAtMicros = askedAtMicros + Math.min(lengthMicros, Math.min(windowLeft, resetAfter));
            resetAtMicros = askedAtMicros + resetAfter;
        }

        /** A lease call ended without a lease to install. */
        synchronized void refillDone() {
            refilling = false;
        }

        private void observe(long cost, long nowMicros) {
            long elapsed = nowMicros - windowStartMicros;
            if (windowStartMicros == Long.MIN_VALUE || elapsed < 0) {
                windowStartMicros = nowMicros;
            } else if (elapsed >= lengthMicros) {
                // The closing window's tokens per lease length, averaged with the past: a burst
                // raises the batch within a window or two, idleness lowers it as fast.
                long closed = elapsed >= 2 * lengthMicros ? 0 : windowTokens;
                perLength = (perLength + closed) / 2;
                windowTokens = 0;
                windowStartMicros = elapsed >= 2 * lengthMicros ? nowMicros
                        : windowStartMicros + lengthMicros;
            }
            windowTokens += cost;
        }
    }
}
