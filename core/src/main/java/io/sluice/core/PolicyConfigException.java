package io.sluice.core;

import org.jspecify.annotations.Nullable;

/**
 * A policy file that cannot be used: its message is {@code file:line: reason}. When a
 * reload fails with it, the previous configuration stays in force.
 */
public final class PolicyConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final int line;
    private final String reason;

    PolicyConfigException(String file, int line, String reason, @Nullable Throwable cause) {
        super(file + ":" + line + ": " + reason, cause);
        this.file = file;
        this.line = line;
        this.reason = reason;
    }

    /** The file (or the source name given to {@link PolicyConfig#parse}). */
    public String file() {
        return file;
    }

    /** The line, counted from 1; 0 when the file could not be read at all. */
    public int line() {
        return line;
    }

    /** What is wrong, without the file and line. */
    public String reason() {
        return reason;
    }
}
