package io.sluice.api;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * A rate limiter's answer to one request, across all the limits that apply. Immutable.
 *
 * <p>The {@linkplain #binding() binding limit} is the one that denies (the one with the
 * longest wait when several deny), else the one with the least remaining; its figures fill
 * the rate-limit headers. Rejection is data, never an exception.
 */
public final class Decision {

    /** Why a request was admitted or denied. */
    public enum Reason {
        /** Every limit had room for the cost: admitted and charged. */
        WITHIN_LIMIT,
        /** A limit had too few tokens now; {@link #retryAfter()} says when the same cost fits. */
        LIMIT_EXCEEDED,
        /** The cost is larger than a limit's capacity: it can never be admitted. */
        COST_EXCEEDS_CAPACITY,
        /**
         * The store could not decide (it failed, timed out, or its circuit breaker is open):
         * allowed under {@link FailurePolicy#FAIL_OPEN}, denied under
         * {@link FailurePolicy#FAIL_CLOSED}. Never a denial by a limit.
         */
        STORE_UNAVAILABLE,
        /**
         * The store could not decide, and this process decided instead under
         * {@link FailurePolicy#FALLBACK}, with the binding limit divided by the number of
         * instances: allowed or not by that share. When denied, {@link #retryAfter()} is the
         * share's.
         */
        FALLBACK
    }

    private final boolean allowed;
    private final Reason reason;
    private final Limit binding;
    private final long remaining;
    private final long resetAfterMicros;
    private final long retryAfterMicros;

    private Decision(boolean allowed, Reason reason, Limit binding, long remaining,
                     long resetAfterMicros, long retryAfterMicros) {
        this.allowed = allowed;
        this.reason = reason;
        this.binding = Objects.requireNonNull(binding, "binding");
        this.remaining = remaining;
        this.resetAfterMicros = resetAfterMicros;
        this.retryAfterMicros = retryAfterMicros;
    }

    /** An admitted request; {@code binding} is the limit with the least remaining. */
    public static Decision allowed(Limit binding, long remaining, long resetAfterMicros) {
        return new Decision(true, Reason.WITHIN_LIMIT, binding, remaining, resetAfterMicros, 0);
    }

    /** A request denied by {@code binding}, which admits the same cost after {@code retryAfterMicros}. */
    public static Decision limitExceeded(Limit binding, long remaining, long resetAfterMicros,
                                         long retryAfterMicros) {
        return new Decision(false, Reason.LIMIT_EXCEEDED, binding, remaining, resetAfterMicros,
                retryAfterMicros);
    }

    /** A request whose cost is larger than the capacity of {@code binding}. */
    public static Decision costExceedsCapacity(Limit binding, long remaining, long resetAfterMicros) {
        return new Decision(false, Reason.COST_EXCEEDS_CAPACITY, binding, remaining, resetAfterMicros, -1);
    }

    /**
     * The store could not decide. Remaining and reset are unknown and reported as zero;
     * {@code allowed} follows the failure policy.
     */
    public static Decision storeUnavailable(Limit binding, boolean allowed) {
        return new Decision(allowed, Reason.STORE_UNAVAILABLE, binding, 0, 0, -1);
    }

    /**
     * The store could not decide and this process did, on {@code binding} divided by the
     * number of instances: {@code remaining}, reset and retry-after are that share's.
     * {@code retryAfterMicros} is ignored when {@code allowed}, and negative when the cost can
     * never fit the share.
     */
    public static Decision fallback(Limit binding, boolean allowed, long remaining, long resetAfterMicros,
                                    long retryAfterMicros) {
        return new Decision(allowed, Reason.FALLBACK, binding, remaining, resetAfterMicros,
                allowed ? 0 : retryAfterMicros);
    }

    /** Whether the request may proceed. */
    public boolean allowed() {
        return allowed;
    }

    /** Why. */
    public Reason reason() {
        return reason;
    }

    /** The limit whose figures this decision reports. */
    public Limit binding() {
        return binding;
    }

    /** The binding limit's capacity, in tokens. */
    public long limit() {
        return binding.burst();
    }

    /** Tokens the binding limit has left after this request (nothing is taken on denial). */
    public long remaining() {
        return remaining;
    }

    /** Time until the binding limit is fully reset (back to its full capacity). */
    public Duration resetAfter() {
        return Duration.of(resetAfterMicros, ChronoUnit.MICROS);
    }

    /**
     * When denied by a limit (or by its share under {@link Reason#FALLBACK}): how long until
     * the same cost could be admitted. Empty when admitted, when the cost can never fit, and
     * when the store was unavailable.
     */
    public Optional<Duration> retryAfter() {
        return allowed || retryAfterMicros < 0
                ? Optional.empty()
                : Optional.of(Duration.of(retryAfterMicros, ChronoUnit.MICROS));
    }

    /**
     * {@link #retryAfter()} in microseconds, {@code -1} when that is empty: for a caller that
     * compares or copies the wait on every decision without building a {@code Duration} and an
     * {@code Optional} (a local store ranking the denials of several limits).
     */
    public long retryAfterMicros() {
        return allowed || retryAfterMicros < 0 ? -1 : retryAfterMicros;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Decision)) {
            return false;
        }
        Decision other = (Decision) o;
        return allowed == other.allowed && reason == other.reason && remaining == other.remaining
                && resetAfterMicros == other.resetAfterMicros
                && retryAfterMicros == other.retryAfterMicros && binding.equals(other.binding);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allowed, reason, binding, remaining, resetAfterMicros, retryAfterMicros);
    }

    @Override
    public String toString() {
        return "Decision[" + (allowed ? "allowed" : "denied") + ", " + reason + ", limit "
                + binding.name() + ", remaining " + remaining + ", resetAfter " + resetAfterMicros
                + "us, retryAfter " + retryAfterMicros + "us]";
    }
}
