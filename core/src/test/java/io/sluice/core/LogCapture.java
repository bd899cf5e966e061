package io.sluice.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
