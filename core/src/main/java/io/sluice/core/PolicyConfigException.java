package io.sluice.core;

import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A policy file that cannot be used. Its message lists every problem of the file, one a
 * line, each as {@code file:line: reason}; {@link #file()}, {@link #line()} and
 * {@link #reason()} are those of the first. When a reload fails with it, the previous
 * configuration stays in force.
 */
public final class PolicyConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<PolicyProblem> problems;

    PolicyConfigException(String file, int line, String reason, @Nullable Throwable cause) {
        this(List.of(new PolicyProblem(file, line, reason)), cause);
    }

    PolicyConfigException(List<PolicyProblem> problems, @Nullable Throwable cause) {
        super(problems.stream().map(PolicyProblem::toString).collect(Collectors.joining("\n")), cause);
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a rejected policy has at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** Every problem of the file, by line. */
    public List<PolicyProblem> problems() {
        return problems;
    }

    /** The file (or the source name given to {@link PolicyConfig#parse}). */
    public String file() {
        return problems.get(0).file();
    }

    /** The line of the first problem, counted from 1; 0 when the file could not be read at all. */
    public int line() {
        return problems.get(0).line();
    }

    /** What is wrong first, without the file and line. */
    public String reason() {
        return problems.get(0).reason();
    }
}
