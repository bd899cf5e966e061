package io.sluice.core;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Logs a repeated failure at most once a minute, so that a failing dependency cannot flood the log. */
final class ThrottledLog {

    private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final System.Logger logger;
    private final AtomicLong nextAllowedNanos = new AtomicLong(System.nanoTime());

    ThrottledLog(System.Logger logger) {
        this.logger = logger;
    }

    void warn(String message, Throwable failure) {
        long now = System.nanoTime();
        long next = nextAllowedNanos.get();
        if (now - next >= 0 && nextAllowedNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
            logger.log(Level.WARNING, message + " (logged at most once a minute)", failure);
        }
    }
}
