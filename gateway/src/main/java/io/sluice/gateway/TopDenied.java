package io.sluice.gateway;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    /** A client's counter, at {@code index} in the heap. */
    private static final class Counter {
        String client;
        long count;
        long error;
        int index;

        Counter(String client, int index) {
            this.client = client;
            this.index = index;
        }
    }

    private final int capacity;
    private final Map<String, Counter> counters;
    // A min-heap of the counters by count: the smallest, which a newcomer replaces, is found in
    // O(1) and a count moves in O(log capacity), so a flood of one-off denied clients (an attack)
    // costs each denial a few steps under the lock rather than a scan of every counter.
    private final Counter[] heap;
    private int size;
    private long total;

    TopDenied(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.counters = new HashMap<>(capacity * 2);
        this.heap = new Counter[capacity];
    }

    /** Counts one denial of {@code client}. */
    synchronized void record(String client) {
        total++;
        Counter counter = counters.get(client);
        if (counter == null && size < capacity) {
            // Counted once, the least count there is: its place is found upwards.
            counter = new Counter(client, size);
            counter.count = 1;
            heap[size++] = counter;
            counters.put(client, counter);
            siftUp(counter);
            return;
        }
        if (counter == null) {
            // Replace the smallest: the newcomer inherits its count as the bound of its error.
            counter = heap[0];
            counters.remove(counter.client);
            counter.client = client;
            counter.error = counter.count;
            counters.put(client, counter);
        }
        counter.count++;
        siftDown(counter);
    }

    /** Moves a new counter above the counters with larger counts. */
    private void siftUp(Counter counter) {
        int index = counter.index;
        while (index > 0) {
            int parent = (index - 1) / 2;
            if (heap[parent].count <= counter.count) {
                break;
            }
            heap[index] = heap[parent];
            heap[index].index = index;
            index = parent;
        }
        heap[index] = counter;
        counter.index = index;
    }

    /** Moves a counter whose count grew below its smaller children. */
    private void siftDown(Counter counter) {
        int index = counter.index;
        while (true) {
            int child = 2 * index + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && heap[child + 1].count < heap[child].count) {
                child++;
            }
            if (heap[child].count >= counter.count) {
                break;
            }
            heap[index] = heap[child];
            heap[index].index = index;
            index = child;
        }
        heap[index] = counter;
        counter.index = index;
    }

    /** The {@code n} most denied clients, most denied first. */
    synchronized List<Entry> top(int n) {
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            entries.add(new Entry(heap[i].client, heap[i].count, heap[i].error));
        }
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
