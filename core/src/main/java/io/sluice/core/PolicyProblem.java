package io.sluice.core;

import java.util.Objects;

/**
 * One problem of a policy file: where it is and what is wrong.
 *
 * @param file the file (or the source name given to {@link PolicyConfig#check(String, String)})
 * @param line the line, counted from 1; 0 when the problem concerns the whole file (it cannot
 *     be read, or it is too large)
 * @param reason what is wrong, without the file and line
 */
public record PolicyProblem(String file, int line, String reason) {

    /** Checks that each part is there and the line is not negative. */
    public PolicyProblem {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
        if (line < 0) {
            throw new IllegalArgumentException("line must not be negative: " + line);
        }
    }

    /** {@code file:line: reason}, as compilers write it, so that editors can jump to it. */
    @Override
    public String toString() {
        return file + ":" + line + ": " + reason;
    }
}
