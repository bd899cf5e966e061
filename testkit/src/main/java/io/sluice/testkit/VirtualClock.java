package io.sluice.testkit;

import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test moves it, for deterministic tests of stores and
 * limiters: give it to a store's {@code clockForTesting}. Thread-safe.
 */
public final class VirtualClock implements TimeSource {

    private final AtomicLong micros;

    /** A clock that reads {@code startMicros} (microseconds since the Unix epoch) until moved. */
    public VirtualClock(long startMicros) {
        this.micros = new AtomicLong(startMicros);
    }

    @Override
    public long nowMicros() {
        return micros.get();
    }

    /**
     * Moves the clock forward.
     *
     * @throws IllegalArgumentException when {@code delta} is negative (use {@link #setMicros} to
     *     move the clock back)
     */
    public void advanceMicros(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("cannot advance by a negative amount: " + delta + "us");
        }
        micros.addAndGet(delta);
    }

    /**
     * Moves the clock forward by a whole number of microseconds.
     *
     * @throws IllegalArgumentException when {@code delta} is negative or not a whole number of
     *     microseconds
     */
    public void advance(Duration delta) {
        if (delta.isNegative() || delta.getNano() % 1_000 != 0) {
            throw new IllegalArgumentException(
                    "cannot advance by a negative or sub-microsecond amount: " + delta);
        }
        advanceMicros(Math.addExact(Math.multiplyExact(delta.getSeconds(), 1_000_000L),
                delta.getNano() / 1_000));
    }

    /** Sets the clock, forward or back (a store's clock may go back, as across a failover). */
    public void setMicros(long nowMicros) {
        micros.set(nowMicros);
    }

    @Override
    public String toString() {
        return "VirtualClock[" + micros.get() + "us]";
    }
}
