package io.sluice.algorithms.grid;

import java.time.Duration;
import java.util.Objects;

/** The checks the grid stores' builders make, with one wording for one mistake. */
public final class GridChecks {

    private GridChecks() {
    }

    /**
     * {@code name} itself.
     *
     * @throws IllegalArgumentException when it is empty
     */
    public static String nonEmpty(String what, String name) {
        Objects.requireNonNull(name, what);
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return name;
    }

    /**
     * {@code timeout} itself.
     *
     * @throws IllegalArgumentException naming it when it is zero or negative
     */
    public static Duration positive(String what, Duration timeout) {
        Objects.requireNonNull(timeout, what);
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + timeout);
        }
        return timeout;
    }

    /**
     * {@code value} itself.
     *
     * @throws IllegalArgumentException naming it when it is below {@code minimum}
     */
    public static int atLeast(String what, int minimum, int value) {
        if (value < minimum) {
            throw new IllegalArgumentException(what + " must be at least " + minimum + ": " + value);
        }
        return value;
    }
}
