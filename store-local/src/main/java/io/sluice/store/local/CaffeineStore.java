package io.sluice.store.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The local store: one {@link KeyState} per key, in a {@link Cell} of a Caffeine cache,
 * changed only under the cell's lock, so every decision on a key is atomic.
 *
 * <p>Why a denial may skip the lock: it changes nothing, so it is read optimistically (the
 * cell's {@link StampedLock} stamp, validated after the read), as a lock-free peer does. On a
 * busy key most decisions are denials, and threads deciding them no longer queue on the
 * key's lock. A read that overlapped a change is thrown away and decided under the lock.
 *
 * <p>Why not Caffeine's {@code compute}: it is the map's write path (the bin's lock, the write
 * buffer, the expiry recomputed), which every decision would take, denials included. Here a
 * decision finds the cell with a quiet read ({@code getIfPresentQuietly}: the map's lookup and
 * the expiry check, without the read buffer, the frequency sketch or the expiry's update) and
 * locks only the cell. A busy key tells Caffeine it is used with an ordinary read at most once
 * a quarter of its longest period (at most once a second), which keeps its entry alive
 * (Caffeine's {@code expireAfterRead}, a field of the entry, no write to the map); when an
 * admission moves the state's reset past the entry's expiry, it moves the entry's expiry
 * with it, under the same lock, so the entry never expires before its state is fully reset.
 * A cell that expired or was evicted while a request was being admitted on it is marked by
 * the cache's eviction listener, detected afterwards and the request decided again on what
 * the map holds then: a charge is never left in a cell the map forgot.
 */
final class CaffeineStore implements Store {

    /**
     * The clock is read inside the atomic step and no caller supplies a time, so all the
     * decisions on a state use this store's one clock: the guarantee {@code serverClock}
     * names, although that clock is this process's own. It decides on the calling thread and
     * has no server to lose: {@code inProcess}.
     */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true, true, true);

    /**
     * How much earlier than a read asked the cell records its entry's expiry, at most: covers a
     * reader that read the clock this much before another whose extension Caffeine kept.
     */
    private static final long MAX_UNCERTAIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * The longest time between two reads of a busy key that Caffeine records: a key with a
     * long period (a day) is still counted as used by the eviction policy, and its entry moved,
     * every second.
     */
    private static final long MAX_USE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** How many times a thread gives up its core for a cell's write lock before it parks ({@code Cell.lockForWrite}). */
    private static final int YIELDS_BEFORE_PARKING = 8;

    private final TimeSource clock;
    private final ConcurrentMap<String, Cell> states;
    private final Policy<String, Cell> policy;
    private final Policy.VarExpiration<String, Cell> expiration;
    private volatile boolean closed;

    CaffeineStore(long maximumSize, TimeSource clock) {
        this.clock = clock;
        Cache<String, Cell> cache = Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .expireAfter(new UntilFullyReset())
                // Caffeine's clock is the store's, in nanoseconds, so that a cell can hold its
                // entry's expiry in the units both use: the system's monotonic clock (much cheaper
                // to read than the time of day, and read on every access), or a test's virtual
                // clock, so that moving it moves expiry too.
                .ticker(() -> microsToNanos(clock.nowMicros()))
                // Synchronous, inside the removal: an admission checks the mark after charging.
                .evictionListener((key, cell, cause) -> {
                    if (cell != null) {
                        cell.removed = true;
                    }
                })
                // Maintenance (expiry, eviction) runs on the calling threads, amortised, rather
                // than on the common pool, where busy application tasks could delay it while
                // memory grows.
                .executor(Runnable::run)
                .build();
        this.states = cache.asMap();
        this.policy = cache.policy();
        this.expiration = policy.expireVariably().orElseThrow();
    }

    @Override
    public StoreCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        // The algorithms run here, in this JVM, whatever they are.
        return true;
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        return run(() -> tryAcquireAndWait(key, limits, cost));
    }

    /** Decides on the calling thread, without a stage: the path of {@code RateLimiter.decide}. */
    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        checkOpen();
        try {
            Cell cell = policy.getIfPresentQuietly(key);
            Decision denial = cell == null ? null : cell.denialWithoutLock(key, limits, cost);
            return denial != null ? denial : charge(key, cell, limits, cost, KeyState::tryAcquire, Decision::allowed);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new StoreUnavailableException("the local store failed", e);
        }
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        return run(() -> charge(key, states.get(key), limits, maxTokens, KeyState::lease, lease -> lease.tokens() > 0));
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        return run(() -> {
            Objects.requireNonNull(lease, "lease");
            if (unusedTokens > lease.tokens()) {
                throw new IllegalArgumentException("cannot give back " + unusedTokens + " tokens of a lease of "
                        + lease.tokens());
            }
            Cell cell = states.get(key);
            if (cell == null) {
                // No state is the fresh state: every limit is full, there is nothing to give back to.
                KeyState.empty().giveBack(limits, clock.nowMicros(), lease.takenAtMicros(), unusedTokens);
                return null;
            }
            long stamp = cell.lockForWrite();
            try {
                // Giving back only moves a state's reset earlier: the entry's expiry stays a safe bound.
                cell.state.giveBack(limits, clock.nowMicros(), lease.takenAtMicros(), unusedTokens);
            } finally {
                cell.unlockWrite(stamp);
            }
            return null;
        });
    }

    /** Runs an operation on the calling thread as a completed stage, its failures as the SPI says. */
    private <R> CompletionStage<R> run(Supplier<R> operation) {
        try {
            checkOpen();
            return CompletableFuture.completedFuture(operation.get());
        } catch (IllegalArgumentException | StoreUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the local store failed", e));
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreUnavailableException("the local store is closed");
        }
    }

    /**
     * Applies an operation that may charge a key's limits, atomically, on the key's cell. The
     * operation takes its arguments rather than capturing them, so that no lambda is allocated
     * per decision.
     *
     * @param found the key's cell as the caller read it from the map, if any
     * @param amount the request's cost, or the most tokens to lease
     * @param charged whether the operation's result charged the state
     */
    private <R> R charge(String key, @Nullable Cell found, List<Limit> limits, long amount,
                         Operation<R> operation, Predicate<R> charged) {
        Cell cell = found;
        while (true) {
            if (cell == null) {
                KeyState fresh = KeyState.empty();
                long nowMicros = clock.nowMicros();
                R result = operation.apply(fresh, limits, nowMicros, amount);
                // A key denied on no state stays absent; one admitted gets a cell unless
                // another request made one first, in which case it is decided on that one.
                if (!charged.test(result) || fresh.isEmpty()
                        || states.putIfAbsent(key, new Cell(fresh, nowMicros, longestPeriodMicros(limits))) == null) {
                    return result;
                }
                cell = states.get(key);
                continue;
            }
            R result;
            boolean admitted;
            long nowMicros;
            long stamp = cell.lockForWrite();
            try {
                nowMicros = clock.nowMicros();
                result = operation.apply(cell.state, limits, nowMicros, amount);
                admitted = charged.test(result);
                if (admitted) {
                    cell.charged(key, nowMicros, limits);
                }
                if (cell.denying == admitted) {
                    cell.denying = !admitted;
                }
            } finally {
                cell.unlockWrite(stamp);
            }
            cell.used(key, nowMicros);
            if (!admitted || !cell.removed) {
                // A denial changed nothing; an admission is in a cell the map still holds, whose
                // expiry it moved past the state's reset.
                return result;
            }
            cell = states.get(key);
        }
    }

    /** An operation on a key's state at the store's time: {@link KeyState#tryAcquire} or {@link KeyState#lease}. */
    @FunctionalInterface
    private interface Operation<R> {
        R apply(KeyState state, List<Limit> limits, long nowMicros, long amount);
    }

    /**
     * Whether the cache holds an entry for this key that has not expired: the conformance kit's
     * probe of the memory a key costs. An expired entry is freed by the cache's maintenance,
     * which runs on the calling threads.
     */
    boolean holdsEntryFor(String key) {
        return states.containsKey(key);
    }

    @Override
    public void close() {
        closed = true;
        states.clear();
    }

    /** The longest period of {@code limits}: how long past its reset a key's entry may be kept. */
    private static long longestPeriodMicros(List<Limit> limits) {
        long longest = 0;
        for (int i = 0; i < limits.size(); i++) {
            longest = Math.max(longest, limits.get(i).periodMicros());
        }
        return longest;
    }

    /**
     * One key's state, changed only under its lock's write lock; a denial reads it without.
     * The cell is its own {@link StampedLock}, so that the lock word lies in the object the
     * decision reads anyway: on many keys each decision's cache misses are most of its time,
     * and a lock of its own was one more (and 16 bytes per key more).
     *
     * <p>The entry lives until its state is fully reset and, past that, three quarters to one
     * longest period of the key's limits after its last decision (at most a second less than
     * one period), as the peers keep a key: a key that comes back within its period (most busy
     * keys) is decided in its entry instead of paying for a new one (the cache's write path, a
     * new state, a new entry to expire). Decisions read the entry quietly; the first one a
     * quarter period (at most a second) after the last recorded read records one, whose
     * {@code expireAfterRead} moves the entry's expiry one longest period past now, through the
     * entry's own field, not the cache's write buffer. An expired limit's state reads as no
     * state ({@link KeyState}): a bucket's or window's is charged again in its own slot, and one
     * a decision leaves uncharged is dropped by it, so the decisions are the same; only an idle
     * key's memory is freed later, at most one longest period after its last decision.
     */
    private final class Cell extends StampedLock {

        private final KeyState state;
        /**
         * Whether the last decision under the lock denied (written there, only when it flips):
         * only then is the lock-free read tried first. A key that is mostly admitted goes
         * straight to the lock, where an admission must be decided anyway, instead of deciding
         * it twice. A hint: read without the lock, a stale value costs one wasted try or one
         * denial under the lock, never a wrong decision.
         */
        private boolean denying;
        /** How long a read keeps the entry: the longest period of the limits it was created with. */
        private final long keepNanos;
        /**
         * When a decision next records a read of this entry, in Caffeine's ticks. A hint, written
         * without the lock: two threads that both record one cost a read more, nothing else.
         */
        private volatile long nextUseNanos;
        /**
         * The entry's expiry in Caffeine's ticks as last set here, at most the one Caffeine
         * holds: written by reads that move it (less than they asked for) and by admissions,
         * under the lock.
         */
        private volatile long entryExpiresAtNanos;
        /** Set by the cache's eviction listener once the map no longer holds this cell. */
        private volatile boolean removed;

        Cell(KeyState state, long nowMicros, long keepMicros) {
            this.state = state;
            this.keepNanos = microsToNanos(keepMicros);
            this.nextUseNanos = saturatedAdd(microsToNanos(nowMicros), useIntervalNanos());
            this.entryExpiresAtNanos = microsToNanos(
                    Math.max(state.expiresAtMicros(), saturatedAdd(nowMicros, keepMicros)));
        }

        /**
         * The cell's write lock, for which a thread gives up its core a few times before it parks.
         * Why: with more deciding threads than cores, a thread holding the lock may be preempted
         * inside its few hundred nanoseconds; a thread that parked behind it waits, once woken,
         * for a core again (10 ms and more on 2 cores busy with 8 threads: 734 parks of 10 ms or
         * more in 10 s of random keys at 8 threads), and then follows the holder through the
         * keys, the next preemption parking it again. A yield lets the holder run and finish
         * instead; a lock still held after {@link #YIELDS_BEFORE_PARKING} yields is waited for
         * as before.
         */
        long lockForWrite() {
            long stamp = tryWriteLock();
            for (int yields = 0; stamp == 0 && yields < YIELDS_BEFORE_PARKING; yields++) {
                Thread.yield();
                stamp = tryWriteLock();
            }
            return stamp != 0 ? stamp : writeLock();
        }

        /**
         * Tells Caffeine that the key was used at {@code nowMicros}, when the last time it was told
         * is a quarter period (at most a second) ago: an ordinary read, which moves the entry's
         * expiry ({@link UntilFullyReset#expireAfterRead}) and counts the key's use for the
         * eviction policy. Every other decision reads the entry quietly, at the cost of the map's
         * lookup alone.
         */
        void used(String key, long nowMicros) {
            long nowNanos = microsToNanos(nowMicros);
            if (nowNanos >= nextUseNanos) {
                nextUseNanos = saturatedAdd(nowNanos, useIntervalNanos());
                states.get(key);
            }
        }

        /** The time between two reads of this key that Caffeine records: a quarter of {@link #keepNanos}, at most a second. */
        private long useIntervalNanos() {
            return Math.min(keepNanos / 4, MAX_USE_INTERVAL_NANOS);
        }

        /**
         * The denial that deciding under the lock would give now, read without it: a state that
         * does not change while it is read is the state at that instant, and a denial leaves it
         * as it is. {@code null} (decide under the lock) when it would admit, when the cell was
         * or became locked for writing meanwhile, or when the read failed, as one that saw an
         * array half grown may: the lock then decides, and reports a real failure as before.
         */
        @Nullable Decision denialWithoutLock(String key, List<Limit> limits, long cost) {
            if (!denying) {
                return null;
            }
            long stamp = tryOptimisticRead();
            if (stamp == 0) {
                return null;
            }
            Decision denial;
            long nowMicros = clock.nowMicros();
            try {
                denial = state.denial(limits, nowMicros, cost);
            } catch (RuntimeException readWhileChanging) {
                return null;
            }
            if (!validate(stamp) || denial == null) {
                return null;
            }
            used(key, nowMicros);
            return denial;
        }

        /**
         * Moves the entry's expiry after the state was charged, when the state's reset passed
         * it (a read keeps it otherwise). The caller holds the write lock.
         */
        void charged(String key, long nowMicros, List<Limit> limits) {
            long resetAtNanos = microsToNanos(state.expiresAtMicros());
            if (resetAtNanos > entryExpiresAtNanos) {
                long nowNanos = microsToNanos(nowMicros);
                long expiresAtNanos = Math.max(resetAtNanos,
                        saturatedAdd(nowNanos, microsToNanos(longestPeriodMicros(limits))));
                entryExpiresAtNanos = expiresAtNanos;
                // Measured from Caffeine's own reading of the clock, which comes later: the entry
                // may outlive its state by that much, never the reverse.
                expiration.setExpiresAfter(key, expiresAtNanos - nowNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /** Expires a key's entry once its last limit is fully reset and its time past that is over. */
    private final class UntilFullyReset implements Expiry<String, Cell> {

        @Override
        public long expireAfterCreate(String key, Cell cell, long currentTimeNanos) {
            // Caffeine's clock is the store's: the entry expires when the cell says.
            return Math.max(0, cell.entryExpiresAtNanos - currentTimeNanos);
        }

        @Override
        public long expireAfterUpdate(String key, Cell cell, long currentTimeNanos,
                                      long currentDurationNanos) {
            // Cells are never replaced in the map (only created, then changed in place).
            return currentDurationNanos;
        }

        @Override
        public long expireAfterRead(String key, Cell cell, long currentTimeNanos,
                                    long currentDurationNanos) {
            // Only recorded reads come here: a busy key's (Cell.used, a quarter period apart) and
            // the leases'; a decision reads quietly.
            if (currentDurationNanos >= cell.keepNanos) {
                return currentDurationNanos;
            }
            // One longest period from now. Caffeine applies it by compare-and-set, which a
            // concurrent reader whose clock reading is older may win, so the cell records less
            // than was asked: an admission whose reset lies past that moves the entry itself.
            long uncertainNanos = Math.min(cell.keepNanos / 4, MAX_UNCERTAIN_NANOS);
            cell.entryExpiresAtNanos = saturatedAdd(currentTimeNanos, cell.keepNanos - uncertainNanos);
            return cell.keepNanos;
        }
    }

    /**
     * The store's clock outside tests: the system's monotonic clock, read as microseconds since
     * the epoch from the wall-clock time when the clock was made. {@code System.nanoTime} costs a
     * fraction of {@code Instant.now()} (a native call, 10-17% of the samples of a decision), and
     * a step of the wall clock (NTP, a manual change) cannot move a limit's reset: the state
     * lives in this process only, so no other clock needs to agree with it.
     */
    static TimeSource monotonicClock() {
        long anchorNanos = System.nanoTime();
        long anchorMicros = TimeSource.system().nowMicros();
        return () -> anchorMicros + (System.nanoTime() - anchorNanos) / 1_000;
    }

    /** Epoch microseconds as Caffeine's nanosecond ticks, saturated instead of overflowing. */
    private static long microsToNanos(long micros) {
        if (micros >= Long.MAX_VALUE / 1_000) {
            return Long.MAX_VALUE;
        }
        if (micros <= Long.MIN_VALUE / 1_000) {
            return Long.MIN_VALUE;
        }
        return micros * 1_000;
    }
}
