package io.sluice.jmh;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * Which keys a benchmark's requests use: every thread on one hot key, or each request on one
 * of 100,000 keys in random order.
 */
public enum KeyPattern {

    /** Every request of every thread on one key: the contended case. */
    HOT,

    /** Requests spread over 100,000 keys, visited in a random order. */
    RANDOM;

    /** How many distinct keys {@link #RANDOM} uses. */
    public static final int RANDOM_KEYS = 100_000;

    /**
     * The keys of this pattern that {@code accept} takes (a store benchmark can ask for keys a
     * given member owns), in a fixed random order so that runs are comparable.
     */
    public String[] keys(Predicate<String> accept) {
        int wanted = this == HOT ? 1 : RANDOM_KEYS;
        List<String> keys = new ArrayList<>(wanted);
        for (int i = 0; keys.size() < wanted; i++) {
            String key = "client-" + i;
            if (accept.test(key)) {
                keys.add(key);
            }
        }
        Collections.shuffle(keys, new Random(42));
        return keys.toArray(String[]::new);
    }

    /** The keys of this pattern. */
    public String[] keys() {
        return keys(key -> true);
    }
}
