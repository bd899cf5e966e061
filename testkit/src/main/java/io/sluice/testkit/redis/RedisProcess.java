package io.sluice.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/** One {@code redis-server} process on a loopback port, without persistence. */
final class RedisProcess {

    static final String HOST = "127.0.0.1";

    /** The cluster bus listens on the client port plus this. */
    private static final int CLUSTER_BUS_OFFSET = 10_000;
    private static final int START_ATTEMPTS = 5;
    private static final long READY_TIMEOUT_MILLIS = 15_000;

    /** Processes still running, stopped by a shutdown hook if a test run dies without closing them. */
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly),
                "sluice-redis-fixture-cleanup"));
    }

    private final RedisBinary binary;
    private final boolean clusterNode;
    private final Path directory;
    private final int port;
    private @Nullable Process process;

    private RedisProcess(RedisBinary binary, boolean clusterNode, Path directory, int port) {
        this.binary = binary;
        this.clusterNode = clusterNode;
        this.directory = directory;
        this.port = port;
    }

    /** Starts a server on a free port, trying other ports when one is taken meanwhile. */
    static RedisProcess start(RedisBinary binary, boolean clusterNode) {
        Path directory;
        try {
            directory = Files.createTempDirectory("sluice-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for redis-server", e);
        }
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            RedisProcess server = new RedisProcess(binary, clusterNode, directory, freePort(clusterNode));
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                failure = e;
            }
        }
        throw failure;
    }

    int port() {
        return port;
    }

    /** The version of the executable this server runs, such as {@code 7.0.15}. */
    String version() {
        return binary.version();
    }

    /** Sends one command to this server; see {@link Resp#call}. */
    @Nullable Object call(String... command) {
        try {
            return Resp.call(HOST, port, command);
        } catch (IOException e) {
            throw new UncheckedIOException("redis-server on port " + port + " unreachable", e);
        }
    }

    /** Stops the server; its data is gone, its cluster configuration file stays. */
    void stop() {
        end(false);
    }

    /**
     * The running server's process id, for tests that signal it (SIGSTOP, SIGCONT).
     *
     * @throws IllegalStateException when it is not running
     */
    long pid() {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        return running.pid();
    }

    /** Kills the server with SIGKILL, as a crash: it saves nothing and closes no connection. */
    void kill() {
        end(true);
    }

    private void end(boolean kill) {
        Process running = process;
        if (running == null) {
            return;
        }
        if (kill) {
            running.destroyForcibly();
        } else {
            running.destroy();
        }
        try {
            if (!running.waitFor(10, TimeUnit.SECONDS)) {
                running.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            running.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        RUNNING.remove(running);
        process = null;
    }

    /** Starts the server again on the same port, after {@link #stop()}. */
    void restart() {
        stop();
        launch();
    }

    /** Stops the server and deletes its directory. */
    void destroy() {
        stop();
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + directory, e);
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(binary.executable().toString(),
                "--port", Integer.toString(port), "--bind", HOST, "--protected-mode", "no",
                "--daemonize", "no", "--save", "", "--appendonly", "no",
                "--dir", directory.toString(), "--loglevel", "warning"));
        if (clusterNode) {
            command.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "5000"));
        }
        Path log = directory.resolve("redis.log");
        Process started;
        try {
            started = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        process = started;
        RUNNING.add(started);
        awaitReady(started, log);
    }

    private void awaitReady(Process started, Path log) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                RUNNING.remove(started);
                process = null;
                throw new IllegalStateException("redis-server on port " + port + " exited: " + tail(log));
            }
            try {
                if ("PONG".equals(Resp.call(HOST, port, "PING"))) {
                    return;
                }
            } catch (IOException | RedisReplyException notYet) {
                // Not listening yet, or still loading: poll again.
            }
            pause(20);
        }
        stop();
        throw new IllegalStateException("redis-server on port " + port + " not ready after "
                + READY_TIMEOUT_MILLIS + " ms: " + tail(log));
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for redis-server", e);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** A port that is free now, with its cluster bus port free too for a cluster node. */
    private static int freePort(boolean clusterNode) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 40_000);
            if (isFree(port) && (!clusterNode || isFree(port + CLUSTER_BUS_OFFSET))) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port found for redis-server");
    }

    private static boolean isFree(int port) {
        try {
            new ServerSocket(port, 1, InetAddress.getByName(HOST)).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
