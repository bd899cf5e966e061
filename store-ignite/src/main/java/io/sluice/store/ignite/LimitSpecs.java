package io.sluice.store.ignite;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Limit;
import java.io.Serializable;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The limits of one request in a form that Ignite marshals cheaply (arrays of strings and
 * longs, no algorithm objects), rebuilt into {@link Limit}s on the node that decides.
 */
final class LimitSpecs implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String[] names;
    private final String[] algorithms;
    private final long[] permits;
    private final long[] bursts;
    private final long[] periodsMicros;

    private LimitSpecs(String[] names, String[] algorithms, long[] permits, long[] bursts,
                       long[] periodsMicros) {
        this.names = names;
        this.algorithms = algorithms;
        this.permits = permits;
        this.bursts = bursts;
        this.periodsMicros = periodsMicros;
    }

    static LimitSpecs of(List<Limit> limits) {
        int n = limits.size();
        String[] names = new String[n];
        String[] algorithms = new String[n];
        long[] permits = new long[n];
        long[] bursts = new long[n];
        long[] periods = new long[n];
        for (int i = 0; i < n; i++) {
            Limit limit = limits.get(i);
            names[i] = limit.name();
            algorithms[i] = limit.algorithm().name();
            permits[i] = limit.permits();
            bursts[i] = limit.burst();
            periods[i] = limit.periodMicros();
        }
        return new LimitSpecs(names, algorithms, permits, bursts, periods);
    }

    /**
     * The limits again, validated as when they were created.
     *
     * @throws IllegalArgumentException when this node does not know an algorithm (an older
     *     {@code sluice-algorithms} on the cluster than on the caller)
     */
    List<Limit> toLimits() {
        List<Limit> limits = new ArrayList<>(names.length);
        for (int i = 0; i < names.length; i++) {
            Limit limit = Limit.of(Algorithms.byName(algorithms[i]), permits[i],
                    Duration.of(periodsMicros[i], ChronoUnit.MICROS));
            if (bursts[i] != permits[i]) {
                limit = limit.withBurst(bursts[i]);
            }
            limits.add(limit.named(names[i]));
        }
        return limits;
    }
}
