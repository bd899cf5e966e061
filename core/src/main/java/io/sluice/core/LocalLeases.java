package io.sluice.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.sluice.algorithms.Algorithms;
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
                        Unused ahead = entry.endAhead();
                        if (ahead != null) {
                            giveBack.giveBack(ahead);
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
            Unused ahead = entry.endAhead();
            if (ahead != null) {
                all.add(ahead);
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

    /**
     * One key's lease and rate on this instance; every method runs under its monitor.
     *
     * <p>Sizing: the key's rate here is counted over the policy's horizon (the longest lease)
     * and averaged over the horizons seen. A key asking at least {@code minTokens} per horizon
     * is leased: the lease lasts as long as that rate takes to ask for two full batches (so a
     * busy key is not asked again within the batch's worth of requests), at most the horizon,
     * and the batch is the tokens that rate asks for in the lease's life, at most the cap. A
     * lease the store granted short of what was asked (the key is at its limit) denies the
     * key's requests beyond its tokens until it ends, without a store call: the tokens the store
     * frees meanwhile (a bucket's refill) stay there for the next lease of any instance. A
     * window's batch counts only the time its window has left, a bucket's only the time its
     * last lease left it from full.
     *
     * <p>With {@link LeasePolicy.Builder#refillAhead refill ahead}, a lease down to a quarter of
     * its tokens has the next batch leased in the background, sized as above; it waits here,
     * taken but not spent, until the current lease is over, and is then spent as if it had just
     * been installed (its end measured from before its own call).
     */
    static final class Entry {

        private final Key key;
        /** The longest lease for these limits, and the horizon the key's rate is counted over, in microseconds. */
        private final long horizonMicros;
        /** The largest batch for these limits. */
        private final long cap;
        private final long minTokens;
        private final boolean refillAhead;

        private @Nullable Lease lease;
        private long left;
        /** The tokens the lease was granted: it runs low at a quarter of them. */
        private long granted;
        /** A lease taken ahead, to be spent once the current one is over; with what was asked and planned for it. */
        private @Nullable Lease ahead;
        private long aheadAskedAtMicros;
        private long aheadAsked;
        private long aheadPlannedLengthMicros;
        /**
         * The lease was granted fewer tokens than asked, or a fixed window's last: the key is at its
         * limit, and beyond the lease's tokens it is denied here until {@link #deniesUntilMicros}.
         */
        private boolean exhausted;
        /** Until when the lease's tokens may be spent. */
        private long endsAtMicros;
        /** Until when an exhausted lease denies: its end, or its fixed window's end if sooner. */
        private long deniesUntilMicros;
        /** When the lease's binding limit is fully reset, had nothing else been charged: for the headers. */
        private long resetAtMicros;
        /** A lease call for this key is in flight: requests meanwhile go to the store. */
        private boolean refilling;
        /**
         * The longest a batch of a bucket may take to spend at the key's rate here: a lease ends
         * when its bucket would have refilled to full, and tokens it holds then are lost (their
         * refill came meanwhile). From the last lease, {@link #bucketSpendable}.
         */
        private long bucketSpendableMicros = Long.MAX_VALUE;
        /** What the lease call in flight asked for, and how long its lease is planned to last. */
        private long asked;
        private long plannedLengthMicros;

        /** Tokens asked for in the current horizon and when it began. */
        private long windowTokens;
        private long windowStartMicros = Long.MIN_VALUE;
        /** Tokens asked per horizon, averaged over the horizons seen; -1 before the first one closed. */
        private long perHorizon = -1;

        Entry(Key key, LeasePolicy policy) {
            this.key = key;
            long shortest = Long.MAX_VALUE;
            long smallest = Long.MAX_VALUE;
            for (Limit limit : key.limits()) {
                shortest = Math.min(shortest, limit.periodMicros());
                smallest = Math.min(smallest, limit.burst());
            }
            this.horizonMicros = Math.max(1, (long) (shortest * policy.lengthShare));
            this.cap = Math.max(1, (long) (smallest * policy.share));
            this.minTokens = policy.minTokens;
            this.refillAhead = policy.refillAhead;
        }

        /**
         * Decides a request of {@code cost} from the lease when it can: admitted from its
         * tokens, or denied when the lease is exhausted and has too few left; {@code null}
         * when the store must be asked. Counts the request in the key's rate either way.
         */
        synchronized @Nullable Decision spend(long cost, long nowMicros) {
            observe(cost, nowMicros);
            return spendLeased(cost, nowMicros);
        }

        /**
         * Decides a request already counted by {@link #spend} from the lease, as {@link #spend}
         * does: after {@link #endIfOver} put a lease taken ahead in place of the one that was over.
         */
        synchronized @Nullable Decision spendLeased(long cost, long nowMicros) {
            Lease held = lease;
            if (held == null) {
                return null;
            }
            Decision charged = held.decision();
            long resetAfter = Math.max(0, resetAtMicros - nowMicros);
            if (nowMicros < endsAtMicros && left >= cost) {
                left -= cost;
                return Decision.allowed(charged.binding(), charged.remaining() + left, resetAfter);
            }
            if (exhausted && nowMicros < deniesUntilMicros) {
                return Decision.limitExceeded(charged.binding(), 0, resetAfter, deniesUntilMicros - nowMicros);
            }
            return null;
        }

        /**
         * Ends the lease when it cannot decide a request of {@code cost} at {@code nowMicros}
         * (ended, or too few tokens left and not exhausted), and puts the lease taken ahead, if
         * any, in its place: the ended lease's unused tokens, or {@code null} when there are
         * none or the lease still runs.
         */
        synchronized @Nullable Unused endIfOver(long cost, long nowMicros) {
            if (lease == null || (nowMicros < endsAtMicros && left >= cost)
                    || (exhausted && nowMicros < deniesUntilMicros)) {
                return null;
            }
            Unused unused = end();
            Lease next = ahead;
            if (next != null) {
                ahead = null;
                asked = aheadAsked;
                plannedLengthMicros = aheadPlannedLengthMicros;
                install(next, aheadAskedAtMicros, 0);
            }
            return unused;
        }

        /**
         * Says how many tokens to lease ahead after a request the lease decided at
         * {@code nowMicros}: 0 unless refill ahead is on, the lease is down to a quarter of its
         * tokens, is not exhausted, none is held or asked for ahead already, and the key is busy
         * enough ({@link #batchFor}). A positive answer is a lease call in flight: answer it with
         * {@link #installAhead} or {@link #refillDone}.
         */
        synchronized long aheadFor(long cost, long nowMicros) {
            if (!refillAhead || lease == null || ahead != null || refilling || exhausted || 4 * left > granted
                    || nowMicros >= endsAtMicros) {
                return 0;
            }
            return batchFor(cost, nowMicros);
        }

        /**
         * Keeps a lease taken ahead (asked for at {@code askedAtMicros}) for when the current one
         * is over; spends it at once as the key's lease when there is none by now.
         */
        synchronized void installAhead(Lease next, long askedAtMicros) {
            refilling = false;
            if (lease == null) {
                install(next, askedAtMicros, 0);
                return;
            }
            ahead = next;
            aheadAskedAtMicros = askedAtMicros;
            aheadAsked = asked;
            aheadPlannedLengthMicros = plannedLengthMicros;
        }

        /** The tokens of the lease taken ahead and not spent, or {@code null} when there is none: for when the key is dropped. */
        synchronized @Nullable Unused endAhead() {
            Lease next = ahead;
            ahead = null;
            return next != null && next.tokens() > 0 ? new Unused(key, next, next.tokens()) : null;
        }

        /**
         * Says how many tokens to lease at {@code nowMicros} now that the store must be asked:
         * 0 when this key is not busy enough here, a request's cost does not fit a batch, or a
         * lease call is already in flight.
         */
        synchronized long batchFor(long cost, long nowMicros) {
            long rate = Math.max(perHorizon, windowTokens);
            if (refilling || cost > cap || rate < minTokens) {
                return 0;
            }
            // Two batches' worth of the key's requests, at most the horizon: rate is per horizon.
            long twoBatches = (long) Math.min(horizonMicros, 2.0 * cap * horizonMicros / rate);
            long spendable = Math.min(Math.min(twoBatches, bucketSpendableMicros),
                    Leasing.spendableUntil(key.limits(), nowMicros) - nowMicros);
            // Rounded down: tokens not spent in their window, or long out of their bucket, are lost.
            long wanted = (long) ((double) rate * spendable / horizonMicros);
            refilling = true;
            plannedLengthMicros = Math.max(1, twoBatches);
            asked = Math.min(cap, Math.max(cost, wanted));
            return asked;
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
            exhausted = false;
            return held != null && unused > 0 ? new Unused(key, held, unused) : null;
        }

        /**
         * Installs a lease the store granted for a request of {@code cost}: one that covers the
         * cost, which it spends, or one of no tokens (the store's denial). A lease short of what
         * was asked (none at all included), or that took a fixed window's last tokens, denies
         * beyond its tokens until it ends.
         *
         * @param askedAtMicros this instance's clock before the lease call
         */
        synchronized void install(Lease granted, long askedAtMicros, long cost) {
            refilling = false;
            lease = granted;
            this.granted = granted.tokens();
            left = Math.max(0, granted.tokens() - cost);
            // Granted short, or a fixed window's last tokens: once spent, the key is at its limit.
            exhausted = (granted.tokens() < asked || (granted.decision().remaining() == 0
                    && granted.decision().binding().algorithm() == Algorithms.FIXED_WINDOW))
                    && !freesTokensGradually(key.limits());
            long takenAt = granted.takenAtMicros();
            long windowLeft = Leasing.spendableUntil(key.limits(), takenAt) - takenAt;
            long resetAfter = granted.decision().resetAfter().toNanos() / 1_000;
            long length = Math.min(plannedLengthMicros, resetAfter);
            endsAtMicros = askedAtMicros + Math.min(length, windowLeft);
            // A fixed window gives its tokens back all at once when it ends, a bucket's refill waits in it.
            deniesUntilMicros = askedAtMicros + Math.min(length, fixedWindowEnd(key.limits(), takenAt) - takenAt);
            resetAtMicros = askedAtMicros + resetAfter;
            Limit binding = granted.decision().binding();
            bucketSpendableMicros = binding.algorithm() == Algorithms.TOKEN_BUCKET
                    || binding.algorithm() == Algorithms.GCRA ? bucketSpendable(binding, resetAfter)
                    : Long.MAX_VALUE;
        }

        /** A lease call ended without a lease to install. */
        synchronized void refillDone() {
            refilling = false;
        }

        /**
         * Whether a limit frees tokens a little at a time and loses those not claimed in time: a
         * sliding window counter frees its previous window's count over its window, and what no
         * instance claims before the window ends is lost. Exhausted leases of such limits do not
         * deny: instances denying for a lease's length claimed a fifth less in the simulator.
         */
        private static boolean freesTokensGradually(List<Limit> limits) {
            return limits.stream().anyMatch(limit -> limit.algorithm() == Algorithms.SLIDING_WINDOW_COUNTER);
        }

        /**
         * How long a batch may take to spend at the key's rate here: the time its last lease left
         * the bucket from full ({@code resetAfter}), when a lease ends, so that tokens are not held
         * while it refills them; unbounded when this instance alone asks as fast as the bucket
         * refills, which then cannot refill a batch before it is spent.
         */
        private long bucketSpendable(Limit bucket, long resetAfter) {
            double refillPerMicro = (double) bucket.permits() / bucket.periodMicros();
            double ratePerMicro = (double) Math.max(perHorizon, windowTokens) / horizonMicros;
            return ratePerMicro >= refillPerMicro ? Long.MAX_VALUE : resetAfter;
        }

        /** The end of the shortest fixed window of {@code limits} at {@code atMicros}; {@link Long#MAX_VALUE} without one. */
        private static long fixedWindowEnd(List<Limit> limits, long atMicros) {
            List<Limit> fixed = limits.stream().filter(limit -> limit.algorithm() == Algorithms.FIXED_WINDOW).toList();
            return Leasing.spendableUntil(fixed, atMicros);
        }

        private void observe(long cost, long nowMicros) {
            long elapsed = nowMicros - windowStartMicros;
            if (windowStartMicros == Long.MIN_VALUE || elapsed < 0) {
                windowStartMicros = nowMicros;
            } else if (elapsed >= horizonMicros) {
                // The closing horizon's tokens, averaged with the past: a burst raises the batch
                // within a horizon or two, idleness lowers it as fast.
                long closed = elapsed >= 2 * horizonMicros ? 0 : windowTokens;
                perHorizon = perHorizon < 0 ? closed : (perHorizon + closed) / 2;
                windowTokens = 0;
                windowStartMicros = elapsed >= 2 * horizonMicros ? nowMicros
                        : windowStartMicros + horizonMicros;
            }
            windowTokens += cost;
        }
    }
}
