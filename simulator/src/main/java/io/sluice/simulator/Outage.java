package io.sluice.simulator;

/**
 * A window of virtual time, from the start of the traffic, in which the store fails every
 * call: {@code --outage FROM..TO}.
 *
 * @param fromMicros when the outage begins, in microseconds after the traffic starts (inclusive)
 * @param toMicros when the store is back, in microseconds after the traffic starts (exclusive)
 */
record Outage(long fromMicros, long toMicros) {

    Outage {
        if (fromMicros < 0 || toMicros <= fromMicros) {
            throw new IllegalArgumentException("an outage must end after it begins, at or after the start: "
                    + fromMicros + "us.." + toMicros + "us");
        }
    }

    /** Whether {@code offsetMicros}, time since the traffic started, falls in the outage. */
    boolean covers(long offsetMicros) {
        return offsetMicros >= fromMicros && offsetMicros < toMicros;
    }

    /** As the option reads it: {@code 2s..5s}. */
    @Override
    public String toString() {
        return DurationConverter.formatMicros(fromMicros) + ".." + DurationConverter.formatMicros(toMicros);
    }
}
