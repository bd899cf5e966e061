package io.sluice.jmh;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The heap a key costs in the local store, for the shapes that {@code docs/stores/local.md}
 * quotes: per shape, a new store with a virtual clock, and the live objects of the whole JVM
 * by class (HotSpot's class histogram, which takes a full collection first) before and after
 * {@code keys} keys of 15 characters were each decided {@code decisions} times (a microsecond
 * apart), divided by {@code keys}. What is counted is everything the store keeps for those keys:
 * the key's {@code String} and its bytes, the map's node and Caffeine's node, the cell (the
 * entry and its lock), the {@code KeyState}, its arrays and the states, and the map's table's
 * share (a power of two of slots, so it depends on {@code keys}: printed apart). The limits and
 * the store itself are in both histograms, so not counted.
 *
 * <pre>
 * java -cp "$CP" io.sluice.jmh.LocalHeapPerKey 200000
 * arguments: keys (default 200,000)
 * </pre>
 *
 * <p>A histogram's own parse is alive during the next one: the probe takes the histogram before
 * twice and keeps the second, so that the parse alive during each of the two it compares is one
 * of the same size.
 */
public final class LocalHeapPerKey {

    /** Where the virtual clock starts: 2026-12-03, in microseconds since the epoch. */
    private static final long START_MICROS = 1_796_256_000_000_000L;

    /** A histogram line: rank, instances, bytes, class name. */
    private static final Pattern LINE = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    /** The class of the map's table: a power of two of slots, whose share per key depends on the count. */
    private static final String TABLE = "[Ljava.util.concurrent.ConcurrentHashMap$Node;";

    private LocalHeapPerKey() {
    }

    /** A shape of limits per key and how many times each key is decided. */
    private record Shape(String description, List<Limit> limits, int decisions) {
    }

    /** See the class comment for the argument. */
    public static void main(String[] args) throws JMException {
        if (args.length > 1) {
            throw new IllegalArgumentException("usage: LocalHeapPerKey [keys]");
        }
        int keys = args.length == 0 ? 200_000 : Integer.parseInt(args[0]);
        if (keys < 1 || keys > 99_999_999) {
            throw new IllegalArgumentException("keys must be 1 to 99,999,999: " + keys);
        }
        List<Limit> mission = SluiceLimiter.limits("token-bucket", LimitShape.MISSION);
        List<Shape> shapes = List.of(
                one("one token bucket", Algorithms.TOKEN_BUCKET, 1),
                one("one GCRA", Algorithms.GCRA, 1),
                one("one fixed window", Algorithms.FIXED_WINDOW, 1),
                one("one sliding window counter", Algorithms.SLIDING_WINDOW_COUNTER, 1),
                new Shape("a token bucket and a fixed window", mission.subList(0, 2), 1),
                new Shape("the mission's three (token bucket, fixed window, token bucket)", mission, 1),
                one("a sliding log holding 10 requests", Algorithms.SLIDING_LOG, 10),
                one("a sliding log holding 20 requests", Algorithms.SLIDING_LOG, 20));
        System.out.printf(Locale.ROOT, "%,d keys of 15 characters per shape; bytes per key%n", keys);
        for (Shape shape : shapes) {
            measure(shape, keys);
        }
    }

    private static Shape one(String description, Algorithm algorithm, int decisions) {
        return new Shape(description, List.of(Limit.of(algorithm, 100, Duration.ofSeconds(1)).named("per-second")),
                decisions);
    }

    /** Decides {@code keys} keys of the shape in a new store and prints what they hold per key. */
    private static void measure(Shape shape, int keys) throws JMException {
        VirtualClock clock = new VirtualClock(START_MICROS);
        Store store = LocalStore.builder().clockForTesting(clock).build();
        try {
            // One key first, so that what the store makes once (Caffeine's buffers) is in both histograms.
            decide(store, shape, "warm-up-key-001", clock);
            histogram();
            Map<String, long[]> before = histogram();
            for (int round = 0; round < shape.decisions(); round++) {
                clock.advanceMicros(1);
                for (int i = 0; i < keys; i++) {
                    if (!store.tryAcquireAndWait(key(i), shape.limits(), 1).allowed()) {
                        throw new IllegalStateException("a probe decision was denied: " + shape);
                    }
                }
            }
            print(shape, before, histogram(), keys);
        } finally {
            store.close();
        }
    }

    private static void decide(Store store, Shape shape, String key, VirtualClock clock) {
        for (int round = 0; round < shape.decisions(); round++) {
            clock.advanceMicros(1);
            store.tryAcquireAndWait(key, shape.limits(), 1);
        }
    }

    /** A key of 15 characters, made anew so that only the store holds it. */
    private static String key(int i) {
        return String.format(Locale.ROOT, "client-%08d", i);
    }

    private static void print(Shape shape, Map<String, long[]> before, Map<String, long[]> after, int keys) {
        List<String> rows = new ArrayList<>();
        long total = 0;
        long table = 0;
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        for (Map.Entry<String, long[]> entry : after.entrySet()) {
            long[] was = before.getOrDefault(entry.getKey(), new long[2]);
            long[] delta = {entry.getValue()[0] - was[0], entry.getValue()[1] - was[1]};
            total += delta[1];
            if (entry.getKey().equals(TABLE)) {
                table = delta[1];
            } else if (delta[0] >= keys / 2) {
                grown.add(Map.entry(entry.getKey(), delta));
            }
        }
        for (Map.Entry<String, long[]> entry : before.entrySet()) {
            if (!after.containsKey(entry.getKey())) {
                total -= entry.getValue()[1];
            }
        }
        grown.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed());
        long listed = table;
        for (Map.Entry<String, long[]> entry : grown) {
            listed += entry.getValue()[1];
            rows.add(String.format(Locale.ROOT, "    %6.1f  %4.2f x %s", (double) entry.getValue()[1] / keys,
                    (double) entry.getValue()[0] / keys, entry.getKey()));
        }
        System.out.printf(Locale.ROOT, "%s: %.1f bytes per key (%.1f without the map's table)%n",
                shape.description(), (double) total / keys, (double) (total - table) / keys);
        rows.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "    %6.1f  the map's table%n    %6.1f  other classes%n",
                (double) table / keys, (double) (total - listed) / keys);
    }

    /** The live objects by class (instances, bytes), after the full collection the histogram takes. */
    private static Map<String, long[]> histogram() throws JMException {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> byClass = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher matcher = LINE.matcher(line);
            if (matcher.find()) {
                // A class loaded by two loaders has two lines of one name.
                long[] counted = byClass.computeIfAbsent(matcher.group(3), name -> new long[2]);
                counted[0] += Long.parseLong(matcher.group(1));
                counted[1] += Long.parseLong(matcher.group(2));
            }
        }
        if (byClass.isEmpty()) {
            throw new IllegalStateException("no class histogram from this JVM: " + text);
        }
        return byClass;
    }
}
