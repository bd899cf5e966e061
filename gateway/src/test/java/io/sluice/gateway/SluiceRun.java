package io.sluice.gateway;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** The {@code sluice} command ({@link Sluice#commandLine}) run in the test's JVM, what it printed kept for the test. */
final class SluiceRun {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Runs the command with {@code args}; returns its exit code. */
    int run(String... args) {
        CommandLine commandLine = Sluice.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        return commandLine.execute(args);
    }

    /** What the runs printed to standard output. */
    String out() {
        return out.toString();
    }

    /** What the runs printed to standard error. */
    String err() {
        return err.toString();
    }
}
