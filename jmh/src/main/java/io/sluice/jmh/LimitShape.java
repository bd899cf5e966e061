package io.sluice.jmh;

import java.time.Duration;
import java.util.List;

/**
 * The limits one decision is checked against: one limit, or the mission's three limits of
 * one key (per second, per day, and an endpoint's cost budget), all-or-nothing.
 *
 * <p>In {@link #SINGLE} and {@link #MISSION} the per-second limit binds on a hot key, so a hot
 * key measures mostly denials and random keys mostly admissions, as in production (an abusive
 * client versus everyone else); {@link #HIGH} admits (almost) everything.
 */
public enum LimitShape {

    /** 100 requests per second, burst 100. */
    SINGLE(List.of(new Spec("per-second", 100, Duration.ofSeconds(1), false))),

    /**
     * 10,000 per millisecond (burst 10,000): high enough that a decision is (almost) always
     * admitted, so every one writes, even on a hot key. This is the path where a
     * compare-and-set store (Bucket4j on Redis) contends; every algorithm can take it
     * (the sliding log's largest limit is 10,000 permits).
     */
    HIGH(List.of(new Spec("high", 10_000, Duration.ofMillis(1), false))),

    /**
     * 100 per second (burst 100), 1,000,000 per day, and an endpoint budget of 1,000 cost
     * units per minute. The per-day limit is always a fixed window: the algorithm a day
     * quota is kept with (a sliding log of a day would hold every request of the day).
     */
    MISSION(List.of(
            new Spec("per-second", 100, Duration.ofSeconds(1), false),
            new Spec("per-day", 1_000_000, Duration.ofDays(1), true),
            new Spec("endpoint-cost", 1_000, Duration.ofMinutes(1), false)));

    /**
     * One limit of the shape.
     *
     * @param name the limit's name, so its state
     * @param permits permits per period, also the burst
     * @param period the period
     * @param fixedWindow whether this limit is always a fixed window, whatever algorithm is measured
     */
    public record Spec(String name, long permits, Duration period, boolean fixedWindow) {
    }

    private final List<Spec> specs;

    LimitShape(List<Spec> specs) {
        this.specs = specs;
    }

    /** The limits, binding one first. */
    public List<Spec> specs() {
        return specs;
    }
}
