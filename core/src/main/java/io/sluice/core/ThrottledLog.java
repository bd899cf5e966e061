package io.sluice.core;

import java.lang.System.Logger.Level;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Logs a repeated event at most once a minute, so that a failing dependency cannot flood the
 * log, and on a thread of its own: the events happen on threads that decide requests (a
 * store's I/O thread, the JDK's one timeout thread), which a slow log destination (a full
 * pipe, a remote appender) must never hold.
 */
final class ThrottledLog {

    private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** At most one record per minute per log: one daemon thread writes them all. */
    private static final ExecutorService WRITER = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "sluice-log");
        thread.setDaemon(true);
        return thread;
    });

    private final System.Logger logger;
    private final Level level;
    private final AtomicLong nextAllowedNanos = new AtomicLong(System.nanoTime());

    ThrottledLog(System.Logger logger) {
        this(logger, Level.WARNING);
    }

    ThrottledLog(System.Logger logger, Level level) {
        this.logger = logger;
        this.level = level;
    }

    /** Logs the message unless one was logged less than a minute ago; the message is built only then. */
    void log(Supplier<String> message, @Nullable Throwable failure) {
        long now = System.nanoTime();
        long next = nextAllowedNanos.get();
        if (now - next >= 0 && nextAllowedNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
            String text = message.get() + " (logged at most once a minute)";
            WRITER.execute(() -> logger.log(level, text, failure));
        }
    }
}
