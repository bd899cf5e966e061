package io.sluice.algorithms.instances;

import io.sluice.api.InstanceCount;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Announces one limiter instance (one store object) to the shared store it uses, every
 * {@code interval}, on a thread of its own, and remembers how many live instances the store
 * counted at the last beat: {@link #instances()} answers from memory, so the fallback can ask
 * while the store is failing, and no decision ever waits for a beat.
 *
 * <p>Each beat registers this instance until {@value #BEATS_TO_EXPIRY} intervals from now on
 * the store's clock, drops the instances whose registration has expired, and counts the rest
 * (this one included). An instance that stops (a crash, a partition) so stops being counted
 * at most {@value #BEATS_TO_EXPIRY} intervals after its last beat; one that closes its store
 * leaves at once. A failed beat keeps the last count, is counted ({@link #failures()}) and is
 * logged: at its first failure, then at most once a minute while beats fail, and once when
 * they succeed again.
 */
public final class Heartbeat implements InstanceCount, AutoCloseable {

    /** How often an instance announces itself unless its store's builder sets another interval. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

    /** An instance is counted until this many intervals after its last beat. */
    public static final int BEATS_TO_EXPIRY = 3;

    private static final System.Logger LOGGER = System.getLogger(Heartbeat.class.getName());
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** How long closing waits for the beat under way and then for leaving. */
    private static final Duration LEAVE_WAIT = Duration.ofSeconds(1);

    /** One call to the store, made on the heartbeat's thread. */
    @FunctionalInterface
    public interface Beat {

        /**
         * Registers {@code instanceId} until {@code ttlMicros} from now on the store's clock (or,
         * with {@code leave}, removes it), drops the expired registrations and returns how many
         * remain; waits at most {@code timeout} for the store.
         *
         * @throws Exception when the store does not answer in time or fails
         */
        int beat(String instanceId, long ttlMicros, boolean leave, Duration timeout) throws Exception;
    }

    private final String target;
    private final String instanceId = UUID.randomUUID().toString();
    private final Duration interval;
    private final long ttlMicros;
    private final Beat beat;
    private final ScheduledExecutorService thread;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The last count the store gave, 0 before the first. */
    private volatile int instances;
    /** Read and written on the heartbeat's thread only. */
    private boolean failing;
    private long lastWarningNanos;

    private Heartbeat(String target, Duration interval, Beat beat) {
        this.target = target;
        this.interval = interval;
        this.ttlMicros = TimeUnit.NANOSECONDS.toMicros(interval.toNanos()) * BEATS_TO_EXPIRY;
        this.beat = beat;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread heartbeat = new Thread(runnable, "sluice-heartbeat " + target);
            heartbeat.setDaemon(true);
            return heartbeat;
        });
    }

    /**
     * Starts announcing this instance to {@code target} (as in {@code the Redis store}, named in
     * the logs): the first beat at once, then every {@code interval}.
     *
     * @throws IllegalArgumentException when the interval is not positive
     */
    public static Heartbeat start(String target, Duration interval, Beat beat) {
        Heartbeat heartbeat = new Heartbeat(Objects.requireNonNull(target, "target"),
                checkInterval(interval), Objects.requireNonNull(beat, "beat"));
        heartbeat.thread.scheduleWithFixedDelay(heartbeat::beatOnce, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
        return heartbeat;
    }

    /**
     * The builders' check of a heartbeat interval.
     *
     * @throws IllegalArgumentException when it is not positive
     */
    public static Duration checkInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("heartbeat interval must be positive: " + interval);
        }
        return interval;
    }

    /** The number of live instances the store counted at the last successful beat; empty before one. */
    @Override
    public OptionalInt instances() {
        int count = instances;
        return count > 0 ? OptionalInt.of(count) : OptionalInt.empty();
    }

    /** How many beats have failed since the start. */
    public long failures() {
        return failures.get();
    }

    /** This instance's id in the store's registry. */
    public String instanceId() {
        return instanceId;
    }

    private void beatOnce() {
        try {
            instances = beat.beat(instanceId, ttlMicros, false, interval);
            if (failing) {
                failing = false;
                LOGGER.log(Level.INFO, "the instance heartbeat to " + target + " succeeds again: "
                        + instances + " instances");
            }
        } catch (Exception | LinkageError e) {
            long failed = failures.incrementAndGet();
            long now = System.nanoTime();
            if (!failing || now - lastWarningNanos >= LOG_INTERVAL_NANOS) {
                lastWarningNanos = now;
                LOGGER.log(Level.WARNING, "the instance heartbeat to " + target + " failed (" + failed
                        + " failed beats so far); the fallback divides by the last count seen, "
                        + instances().stream().mapToObj(Integer::toString).findFirst().orElse("none yet"), e);
            }
            failing = true;
        }
    }

    /**
     * Stops the beats and removes this instance from the store's registry, so that the others
     * stop counting it at their next beat: waits at most a second for the beat under way, then
     * at most a second for the store to answer; when it does not, the registration expires
     * instead. Closing again does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        thread.shutdown();
        try {
            // The beat under way (if any) ends first, so that it cannot register this instance again.
            if (thread.awaitTermination(LEAVE_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                leave(LEAVE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            thread.shutdownNow();
        }
    }

    private void leave(Duration wait) {
        try {
            beat.beat(instanceId, ttlMicros, true, wait);
        } catch (Exception e) {
            LOGGER.log(Level.INFO, "this instance could not leave the registry of " + target
                    + "; the others stop counting it when it expires", e);
        }
    }

    @Override
    public String toString() {
        return "Heartbeat[" + target + ", instance " + instanceId + ", " + instances + " instances]";
    }
}
