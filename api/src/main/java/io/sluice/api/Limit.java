package io.sluice.api;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One limit: an algorithm, a number of permits per period and, for the bucket
 * algorithms, a burst capacity. Immutable.
 *
 * <pre>{@code
 * Limit perSecond = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).withBurst(100);
 * Limit perDay = Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1)).named("daily");
 * }</pre>
 *
 * <p>A limit's {@linkplain #name() name} identifies its state within one store: requests
 * for the same key against limits of the same name read and charge the same state. So two
 * limiters share state exactly when both were given a store on the same back end with
 * {@link RateLimiterBuilder#store} (the same {@link Store} object, or stores on the same
 * Redis, Hazelcast map or Ignite cache) and their limits have the same name. A limiter built
 * without {@code store(...)} gets an embedded store of its own and shares nothing with any
 * other limiter, whatever its limits are named. The name is the state's only identity: a
 * limit of the same name with other permits, period or algorithm reads the state as it is
 * (as when a tier changes), and a renamed limit starts from no state.
 *
 * <p>Its {@linkplain #failurePolicy() failure policy} says what to answer while the store
 * cannot decide; it is not part of the state, so it takes no part in {@link #equals}.
 */
public final class Limit {

    /** The largest number of permits (and burst) a limit may have. */
    public static final long MAX_PERMITS = 1_000_000_000L;

    /** The longest period a limit may have. */
    public static final Duration MAX_PERIOD = Duration.ofDays(366);

    /** The longest name a limit may have. */
    public static final int MAX_NAME_LENGTH = 64;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:/-]+");

    private final String name;
    private final Algorithm algorithm;
    private final long permits;
    private final long burst;
    private final long periodMicros;
    private final @Nullable FailurePolicy failurePolicy;
    /** Computed once: limits are hashed on every block-cache lookup. */
    private final int hash;

    private Limit(String name, Algorithm algorithm, long permits, long burst, long periodMicros,
                  @Nullable FailurePolicy failurePolicy) {
        this.name = name;
        this.algorithm = algorithm;
        this.permits = permits;
        this.burst = burst;
        this.periodMicros = periodMicros;
        this.failurePolicy = failurePolicy;
        this.hash = Objects.hash(name, algorithm.name(), permits, burst, periodMicros);
    }

    /**
     * A limit of {@code permits} per {@code period}, with a burst equal to {@code permits}
     * and a name derived from its parameters.
     *
     * @throws IllegalArgumentException naming the value when {@code permits} is outside
     *     1..{@link #MAX_PERMITS}, {@code period} is not a positive whole number of
     *     microseconds up to {@link #MAX_PERIOD}, or the algorithm cannot enforce it
     */
    public static Limit of(Algorithm algorithm, long permits, Duration period) {
        Objects.requireNonNull(algorithm, "algorithm");
        checkPermits("permits", permits);
        long periodMicros = toMicros(period);
        algorithm.checkLimit(permits, permits, periodMicros);
        return new Limit(defaultName(algorithm, permits, period), algorithm, permits, permits,
                periodMicros, null);
    }

    /**
     * This limit with another burst: the most tokens the bucket algorithms hold, so the
     * largest request or burst of requests they admit at once.
     *
     * @throws IllegalArgumentException naming the value when {@code burst} is outside
     *     1..{@link #MAX_PERMITS} or the algorithm has no burst distinct from its permits
     */
    public Limit withBurst(long burst) {
        checkPermits("burst", burst);
        algorithm.checkLimit(permits, burst, periodMicros);
        return new Limit(name, algorithm, permits, burst, periodMicros, failurePolicy);
    }

    /**
     * This limit with its own answer for when the store cannot decide, instead of the
     * limiter's ({@link RateLimiterBuilder#failurePolicy}).
     */
    public Limit withFailurePolicy(FailurePolicy failurePolicy) {
        Objects.requireNonNull(failurePolicy, "failurePolicy");
        return new Limit(name, algorithm, permits, burst, periodMicros, failurePolicy);
    }

    /**
     * This limit under another name.
     *
     * @throws IllegalArgumentException when the name is empty, longer than
     *     {@link #MAX_NAME_LENGTH} or has characters other than letters, digits and {@code ._:/-}
     */
    public Limit named(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("limit name must be 1-" + MAX_NAME_LENGTH
                    + " characters of [A-Za-z0-9._:/-]: '" + name + "'");
        }
        return new Limit(name, algorithm, permits, burst, periodMicros, failurePolicy);
    }

    /** The name that identifies this limit's state in a store. */
    public String name() {
        return name;
    }

    /** The algorithm that enforces this limit. */
    public Algorithm algorithm() {
        return algorithm;
    }

    /** Permits per period: the refill rate of the bucket algorithms, the count of the windows. */
    public long permits() {
        return permits;
    }

    /** The capacity: the most tokens available at once (equal to permits for the windows). */
    public long burst() {
        return burst;
    }

    /** The period. */
    public Duration period() {
        return Duration.of(periodMicros, ChronoUnit.MICROS);
    }

    /** The period in microseconds. */
    public long periodMicros() {
        return periodMicros;
    }

    /** This limit's own failure policy; empty when the limiter's applies. */
    public Optional<FailurePolicy> failurePolicy() {
        return Optional.ofNullable(failurePolicy);
    }

    private static void checkPermits(String what, long value) {
        if (value < 1 || value > MAX_PERMITS) {
            throw new IllegalArgumentException(what + " must be in 1.." + MAX_PERMITS + ": " + value);
        }
    }

    private static long toMicros(Duration period) {
        Objects.requireNonNull(period, "period");
        if (period.isNegative() || period.isZero() || period.compareTo(MAX_PERIOD) > 0
                || period.getNano() % 1_000 != 0) {
            throw new IllegalArgumentException("period must be a whole number of microseconds in 1us.."
                    + MAX_PERIOD + ": " + period);
        }
        return period.getSeconds() * 1_000_000L + period.getNano() / 1_000;
    }

    private static String defaultName(Algorithm algorithm, long permits, Duration period) {
        return algorithm.name() + ":" + permits + "/" + period.toString().substring(2).toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Limit)) {
            return false;
        }
        Limit other = (Limit) o;
        return permits == other.permits && burst == other.burst && periodMicros == other.periodMicros
                && name.equals(other.name) && algorithm.name().equals(other.algorithm.name());
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "Limit[" + name + ", " + algorithm.name() + ", " + permits + " per " + period()
                + ", burst " + burst + (failurePolicy == null ? "" : ", " + failurePolicy) + "]";
    }
}
