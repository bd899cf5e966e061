package io.sluice.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Starts a cluster member in a JVM of its own, on the benchmark's class path, so that the
 * benchmark's caller is never the owner of its keys, and waits for the member's ready line.
 */
final class MemberProcess {

    /**
     * How long a member may take to print its ready line before it is killed: one that never
     * does (its cluster never forms, a port it was given was taken meanwhile) must fail its
     * run, not hold it, and the machine, until someone notices.
     */
    static final Duration READY_WITHIN = Duration.ofMinutes(2);

    private MemberProcess() {
    }

    /**
     * Runs {@code mainClass} with {@code jvmArgs} and {@code args}; returns once it prints
     * {@code readyLine}. Its standard error goes to a temporary log named after {@code what},
     * quoted when the process exits, or is killed after {@link #READY_WITHIN}, before it is ready.
     */
    static Process start(String what, List<String> jvmArgs, Class<?> mainClass, List<String> args,
                         String readyLine) {
        try {
            Path log = Files.createTempFile("sluice-jmh-" + what.replace(' ', '-') + "-", ".log");
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx1g");
            command.addAll(jvmArgs);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
            command.addAll(args);
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            CompletableFuture<Void> killer = CompletableFuture.runAsync(process::destroyForcibly,
                    CompletableFuture.delayedExecutor(READY_WITHIN.toMillis(), TimeUnit.MILLISECONDS));
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                if (line.equals(readyLine) && killer.cancel(false)) {
                    return process;
                }
            }
            killer.cancel(false);
            process.destroyForcibly();
            String ended = killer.isCancelled() ? "exited" : "was not ready within " + READY_WITHIN + " and was killed";
            throw new IllegalStateException("the " + what + " process " + ended + " before it was ready; its log "
                    + log + ":\n" + Files.readString(log));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the " + what + " process", e);
        }
    }

    /** Stops a member started by {@link #start}: politely, then forcibly after 10 seconds. */
    static void stop(Process member) {
        member.destroy();
        try {
            if (!member.waitFor(10, TimeUnit.SECONDS)) {
                member.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            member.destroyForcibly();
        }
    }

    /** A loopback port free at the time of asking. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
