package io.sluice.gateway;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The most denied clients, in bounded memory whatever the number of clients: the Space-Saving
 * sketch (Metwally et al.) with a fixed number of counters. A client denied more than
 * {@code total / capacity} times is always listed; a count may be overestimated, by at most
 * its {@code error}. Clients are labels that never hold a whole API key. Thread-safe.
 */
final class TopDenied {

    /** One listed client: its count of denials, overestimated by at most {@code error}. */
    record Entry(String client, long denied, long error) {
    }

    private static final class Counter {
        long count;
        long error;
    }

    private final int capacity;
    private final Map<String, Counter> counters;
    private long total;

    TopDenied(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.counters = new HashMap<>(capacity * 2);
    }

    /** Counts one denial of {@code client}. */
    synchronized void record(String client) {
        total++;
        Counter counter = counters.get(client);
        if (counter == null) {
            if (counters.size() < capacity) {
                counter = new Counter();
            } else {
                // Replace the smallest: the newcomer inherits its count as the bound of its error.
                String smallest = Collections.min(counters.entrySet(),
                        Comparator.comparingLong((Map.Entry<String, Counter> entry) -> entry.getValue().count)).getKey();
                counter = Objects.requireNonNull(counters.remove(smallest), "smallest counter");
                counter.error = counter.count;
            }
            counters.put(client, counter);
        }
        counter.count++;
    }

    /** The {@code n} most denied clients, most denied first. */
    synchronized List<Entry> top(int n) {
        List<Entry> entries = new ArrayList<>();
        counters.forEach((client, counter) -> entries.add(new Entry(client, counter.count, counter.error)));
        entries.sort(Comparator.comparingLong(Entry::denied).reversed().thenComparing(Entry::client));
        return entries.subList(0, Math.min(n, entries.size()));
    }

    /** Every denial counted since the start. */
    synchronized long total() {
        return total;
    }

    int capacity() {
        return capacity;
    }
}
