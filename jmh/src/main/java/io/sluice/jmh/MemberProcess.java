package io.sluice.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts a cluster member in a JVM of its own, on the benchmark's class path, so that the
 * benchmark's caller is never the owner of its keys, and waits for the member's ready line.
 */
final class MemberProcess {

    private MemberProcess() {
    }

    /**
     * Runs {@code mainClass} with {@code jvmArgs} and {@code args}; returns once it prints
     * {@code readyLine}. Its standard error goes to a temporary log named after {@code what},
     * quoted when the process exits before it is ready.
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
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null) {
                if (line.equals(readyLine)) {
                    return process;
                }
            }
            process.destroyForcibly();
            throw new IllegalStateException("the " + what + " process exited before it was ready; its log "
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
