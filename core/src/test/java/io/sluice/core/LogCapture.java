package io.sluice.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The records one logger writes (System.Logger goes to java.util.logging here), while open. */
final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger;
    final List<LogRecord> records = new CopyOnWriteArrayList<>();

    LogCapture(String name) {
        this.logger = Logger.getLogger(name);
        logger.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    /**
     * The records that match, once there are {@code count} of them or 10 s have passed, and once
     * 100 ms more brought no other (throttled logs are written on a thread of their own).
     */
    List<LogRecord> await(Predicate<LogRecord> matching, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (records.stream().filter(matching).count() < count && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        TimeUnit.MILLISECONDS.sleep(100);
        return records.stream().filter(matching).toList();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
