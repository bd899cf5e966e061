package io.sluice.api;

import java.time.Instant;

/**
 * A clock in microseconds since the Unix epoch.
 *
 * <p>Stores use their own authoritative clock (Redis {@code TIME}, the owning member's
 * clock); a {@code TimeSource} given to a store is a test-only override that makes its
 * decisions deterministic.
 */
@FunctionalInterface
public interface TimeSource {

    /** Returns the current time in microseconds since the Unix epoch. */
    long nowMicros();

    /** The system wall clock, in microseconds. */
    static TimeSource system() {
        return () -> {
            Instant now = Instant.now();
            return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        };
    }
}
