package io.sluice.simulator;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

/** How the simulated load balancer spreads requests over the gateway instances. */
enum Balancer {

    /** Each request goes to the next instance in turn, whichever client sent it. */
    ROUND_ROBIN("round-robin") {
        @Override
        IntSupplier picker(int instances, SplittableRandom random) {
            return new IntSupplier() {
                private int next;

                @Override
                public int getAsInt() {
                    int instance = next;
                    next = (next + 1) % instances;
                    return instance;
                }
            };
        }
    },

    /** Each request goes to an instance chosen uniformly at random. */
    RANDOM("random") {
        @Override
        IntSupplier picker(int instances, SplittableRandom random) {
            return () -> random.nextInt(instances);
        }
    },

    /**
     * Zipf-skewed: instance {@code i} (from 0) gets a share proportional to {@code 1 / (i + 1)},
     * so with 20 instances the first gets 28% of the requests and the last 1.4%.
     */
    SKEWED("skewed") {
        @Override
        IntSupplier picker(int instances, SplittableRandom random) {
            double[] cumulative = new double[instances];
            double total = 0;
            for (int i = 0; i < instances; i++) {
                total += 1.0 / (i + 1);
                cumulative[i] = total;
            }
            double sum = total;
            return () -> {
                // The first instance whose cumulative share reaches the draw.
                int found = Arrays.binarySearch(cumulative, random.nextDouble() * sum);
                return found >= 0 ? found : -found - 1;
            };
        }
    };

    private final String optionName;

    Balancer(String optionName) {
        this.optionName = optionName;
    }

    /** The name on the command line. */
    String optionName() {
        return optionName;
    }

    /**
     * A fresh sequence of instance indexes in {@code 0..instances-1}, one per request;
     * {@code random} is its only source of randomness, so a seed fixes the sequence.
     */
    abstract IntSupplier picker(int instances, SplittableRandom random);

    /**
     * The balancer named {@code name}.
     *
     * @throws IllegalArgumentException naming the value when no balancer has that name
     */
    static Balancer byName(String name) {
        for (Balancer balancer : values()) {
            if (balancer.optionName.equals(name)) {
                return balancer;
            }
        }
        throw new IllegalArgumentException("unknown balancer '" + name + "', expected one of "
                + Arrays.stream(values()).map(Balancer::optionName).collect(Collectors.joining(", ")));
    }
}
