package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import java.util.List;
import java.util.Objects;

/**
 * The five reference algorithms, defined exactly in {@code docs/algorithms.md}. Each is a
 * pure, deterministic, thread-safe transition on a compact {@code long[]} state, using
 * integer arithmetic whose every intermediate value stays below 2<sup>53</sup>, so that a
 * Lua script can reproduce it bit for bit.
 *
 * <pre>{@code
 * Limit limit = Limit.of(Algorithms.GCRA, 100, Duration.ofSeconds(1)).withBurst(20);
 * Algorithm byConfig = Algorithms.byName("sliding-window-counter");
 * }</pre>
 */
public final class Algorithms {

    /** Counts per epoch-aligned window; up to twice the limit across a window boundary. */
    public static final Algorithm FIXED_WINDOW = new FixedWindow();

    /** Keeps every admitted request of the last period: exact, memory grows with the limit. */
    public static final Algorithm SLIDING_LOG = new SlidingLog();

    /** Weighs the previous window's count by overlap: nearly exact, constant memory. */
    public static final Algorithm SLIDING_WINDOW_COUNTER = new SlidingWindowCounter();

    /** Tokens refilled by elapsed time up to a burst capacity. */
    public static final Algorithm TOKEN_BUCKET = new TokenBucket();

    /** The generic cell rate algorithm: token-bucket decisions in a single long. */
    public static final Algorithm GCRA = new Gcra();

    private static final List<Algorithm> ALL =
            List.of(FIXED_WINDOW, SLIDING_LOG, SLIDING_WINDOW_COUNTER, TOKEN_BUCKET, GCRA);

    private Algorithms() {
    }

    /** All five algorithms, in the order of their ids (1 to 5). */
    public static List<Algorithm> all() {
        return ALL;
    }

    /** Whether this is one of the five built-in algorithms (by identity: ids 1 to 5). */
    public static boolean isBuiltIn(Algorithm algorithm) {
        return ALL.contains(algorithm);
    }

    /**
     * The built-in algorithm with this {@linkplain Algorithm#id() id}.
     *
     * @throws IllegalArgumentException naming the id when no built-in algorithm has it
     */
    public static Algorithm byId(int id) {
        for (Algorithm algorithm : ALL) {
            if (algorithm.id() == id) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("unknown algorithm id " + id + ", expected 1 to " + ALL.size());
    }

    /**
     * The algorithm with this name: {@code fixed-window}, {@code sliding-log},
     * {@code sliding-window-counter}, {@code token-bucket} or {@code gcra}.
     *
     * @throws IllegalArgumentException naming the name when no algorithm has it
     */
    public static Algorithm byName(String name) {
        Objects.requireNonNull(name, "name");
        for (Algorithm algorithm : ALL) {
            if (algorithm.name().equals(name)) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("unknown algorithm '" + name + "', expected one of "
                + "fixed-window, sliding-log, sliding-window-counter, token-bucket, gcra");
    }
}
