package io.sluice.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One limit's answer to one request: the result of {@link Algorithm#transition}.
 *
 * <p>Times are in microseconds from the decision's instant. {@link #resetAfterMicros()}
 * is also how long the state must be kept: after it, the state equals the fresh state,
 * so a store may expire it.
 */
public final class Transition {

    private final boolean allowed;
    private final boolean costExceedsCapacity;
    private final long remaining;
    private final long resetAfterMicros;
    private final long retryAfterMicros;
    private final long @Nullable [] state;

    private Transition(boolean allowed, boolean costExceedsCapacity, long remaining,
                       long resetAfterMicros, long retryAfterMicros, long @Nullable [] state) {
        this.allowed = allowed;
        this.costExceedsCapacity = costExceedsCapacity;
        this.remaining = remaining;
        this.resetAfterMicros = resetAfterMicros;
        this.retryAfterMicros = retryAfterMicros;
        this.state = state;
    }

    /**
     * The transition of one request, whichever it is: {@link #costExceedsCapacity} when
     * {@code costExceedsCapacity}, else {@link #allowed} or {@link #denied} as {@code allowed}
     * says. For an algorithm that decides on several branches and builds its answer in one
     * place: one allocation, which the JIT can remove when the caller only reads the figures
     * (a store deciding a denial); JDK 17's escape analysis keeps an object that one of
     * several allocations may have made.
     *
     * @param retryAfterMicros read only when denied with a cost that fits; 0 otherwise
     * @param state what to store when allowed (required then); else the input state, possibly {@code null}
     * @throws IllegalArgumentException when both {@code allowed} and {@code costExceedsCapacity}
     */
    public static Transition of(boolean allowed, boolean costExceedsCapacity, long remaining,
                                long resetAfterMicros, long retryAfterMicros, long @Nullable [] state) {
        if (allowed && costExceedsCapacity) {
            throw new IllegalArgumentException("a request whose cost exceeds the capacity cannot be allowed");
        }
        if (allowed) {
            Objects.requireNonNull(state, "state");
        }
        return new Transition(allowed, costExceedsCapacity, remaining, resetAfterMicros,
                allowed || costExceedsCapacity ? 0 : retryAfterMicros, state);
    }

    /** An admitted request: {@code state} is what to store. */
    public static Transition allowed(long remaining, long resetAfterMicros, long[] state) {
        return of(true, false, remaining, resetAfterMicros, 0, state);
    }

    /** A request denied now that the same cost could pass after {@code retryAfterMicros}. */
    public static Transition denied(long remaining, long resetAfterMicros, long retryAfterMicros,
                                    long @Nullable [] state) {
        return of(false, false, remaining, resetAfterMicros, retryAfterMicros, state);
    }

    /** A request whose cost is above the limit's capacity: it can never pass. */
    public static Transition costExceedsCapacity(long remaining, long resetAfterMicros,
                                                 long @Nullable [] state) {
        return of(false, true, remaining, resetAfterMicros, 0, state);
    }

    /** Whether the request is admitted by this limit. */
    public boolean allowed() {
        return allowed;
    }

    /** Whether the cost is larger than the limit's capacity, so it can never be admitted. */
    public boolean costExceedsCapacity() {
        return costExceedsCapacity;
    }

    /** Tokens left after this request (nothing is taken when it is denied). */
    public long remaining() {
        return remaining;
    }

    /** Microseconds until the limit is fully reset, which is also the state's time to live. */
    public long resetAfterMicros() {
        return resetAfterMicros;
    }

    /** When denied (and the cost fits the capacity): microseconds until the same cost passes. */
    public long retryAfterMicros() {
        return retryAfterMicros;
    }

    /**
     * The state after this request: to store when admitted. When denied, stores keep
     * what they have (a denied request consumes nothing); the value is then the input
     * state, possibly {@code null}.
     */
    public long @Nullable [] state() {
        return state;
    }

    @Override
    public String toString() {
        return "Transition[allowed=" + allowed + ", costExceedsCapacity=" + costExceedsCapacity
                + ", remaining=" + remaining + ", resetAfterMicros=" + resetAfterMicros
                + ", retryAfterMicros=" + retryAfterMicros + "]";
    }
}
