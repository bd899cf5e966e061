package io.sluice.testkit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real {@code redis-server} processes on free loopback ports, for tests and benchmarks:
 * one standalone server, or a Redis Cluster of three masters (formed with
 * {@code CLUSTER MEET} and {@code CLUSTER ADDSLOTS}, no {@code redis-cli} needed). Nothing
 * is persisted; the processes are stopped by {@link #close()} (or a shutdown hook).
 *
 * <p>As a JUnit 5 extension, on a static field, the servers live for the test class:
 * <pre>{@code
 * @RegisterExtension
 * static final RedisFixture redis = RedisFixture.cluster();
 * ...
 * RedisClusterClient.create(redis.uri());
 * }</pre>
 * Elsewhere (a benchmark), {@code try (RedisFixture redis = RedisFixture.standalone().start()) {...}}.
 *
 * <p>{@link #mixedCluster()} is the same cluster with its first master on the bundled Redis 6.2
 * and the others on the executable found as below, as in a cluster halfway through an upgrade;
 * it has two versions only when that executable is a later Redis (see {@link #version(int)}).
 *
 * <p>The executable is, in this order: the one named by the system property
 * {@code sluice.redis.server} (a path, or {@code bundled}); {@code redis-server} on the
 * {@code PATH}; the binary bundled in {@code com.github.codemonstur:embedded-redis:1.4.3},
 * which the test kit depends on (Redis 6.2, for Linux and macOS on x86-64 and arm64).
 * Docker is not used. Which one and its version are logged once; when there is none,
 * {@link #start()} throws an {@link IllegalStateException} that says what was tried.
 */
public final class RedisFixture implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    private static final int CLUSTER_MASTERS = 3;
    private static final int SLOTS = 16_384;
    private static final long CLUSTER_READY_TIMEOUT_MILLIS = 30_000;

    private final boolean cluster;
    /** Whether the first master runs the bundled Redis 6.2 instead of the executable found. */
    private final boolean firstOnBundled;
    private final List<RedisProcess> servers = new ArrayList<>();

    private RedisFixture(boolean cluster, boolean firstOnBundled) {
        this.cluster = cluster;
        this.firstOnBundled = firstOnBundled;
    }

    /** A fixture of one standalone server (not started yet). */
    public static RedisFixture standalone() {
        return new RedisFixture(false, false);
    }

    /** A fixture of a Redis Cluster of three masters without replicas (not started yet). */
    public static RedisFixture cluster() {
        return new RedisFixture(true, false);
    }

    /**
     * A fixture of a Redis Cluster of three masters without replicas (not started yet) whose
     * first master runs the Redis 6.2 bundled in the test kit and the other two the executable
     * found as for every fixture: two versions in one cluster, as during a rolling upgrade, when
     * that executable is Redis 7 or later. A test that needs both checks {@link #version(int)}.
     */
    public static RedisFixture mixedCluster() {
        return new RedisFixture(true, true);
    }

    /**
     * Starts the servers (and forms the cluster), unless they already run.
     *
     * @return this fixture
     * @throws IllegalStateException when no {@code redis-server} can be found or started
     */
    public synchronized RedisFixture start() {
        if (!servers.isEmpty()) {
            return this;
        }
        try {
            for (int i = 0; i < (cluster ? CLUSTER_MASTERS : 1); i++) {
                servers.add(RedisProcess.start(i == 0 && firstOnBundled ? RedisBinary.bundled() : RedisBinary.get(),
                        cluster));
            }
            if (cluster) {
                formCluster();
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        return this;
    }

    /** Whether this fixture is a cluster. */
    public boolean isCluster() {
        return cluster;
    }

    /** The host every server listens on: {@code 127.0.0.1}. */
    public String host() {
        return RedisProcess.HOST;
    }

    /** The servers' ports; for a cluster, the masters' in slot order. */
    public synchronized List<Integer> ports() {
        checkStarted();
        return servers.stream().map(RedisProcess::port).collect(Collectors.toUnmodifiableList());
    }

    /** A {@code redis://} URI of the (first) server, the seed for a cluster client. */
    public String uri() {
        return uri(0);
    }

    /** A {@code redis://} URI of the server at {@code index} in {@link #ports()}. */
    public String uri(int index) {
        return "redis://" + host() + ":" + ports().get(index);
    }

    /**
     * The version of the {@code redis-server} found for the fixtures, such as {@code 7.0.15}:
     * every server's, except the first master of a {@link #mixedCluster()}.
     */
    public String version() {
        return RedisBinary.get().version();
    }

    /** The version of the server at {@code index} in {@link #ports()}, such as {@code 6.2.6}. */
    public synchronized String version(int index) {
        checkStarted();
        return servers.get(index).version();
    }

    /**
     * Sends one command to the server at {@code index} in {@link #ports()} and returns its
     * reply: a {@code String}, {@code Long}, {@code List<Object>} or {@code null}.
     *
     * @throws RedisReplyException when Redis answers with an error
     */
    public @Nullable Object command(int index, String... command) {
        RedisProcess server;
        synchronized (this) {
            checkStarted();
            server = servers.get(index);
        }
        return server.call(command);
    }

    /**
     * Stops every server and starts it again on the same port, as after a crash: data and
     * loaded scripts are gone, a cluster keeps its configuration and slots. Returns once all
     * servers answer (and the cluster is healthy again).
     */
    public synchronized void restart() {
        checkStarted();
        servers.forEach(RedisProcess::stop);
        servers.forEach(RedisProcess::restart);
        if (cluster) {
            awaitClusterReady();
        }
    }

    /**
     * Kills every server with SIGKILL, as a crash; {@link #restart()} starts them again on the
     * same ports.
     */
    public synchronized void kill() {
        checkStarted();
        servers.forEach(RedisProcess::kill);
    }

    /**
     * The process ids of the running servers, in the order of {@link #ports()}: for a test that
     * signals a server (SIGSTOP to make it hang, SIGCONT to resume it).
     */
    public synchronized List<Long> pids() {
        checkStarted();
        return servers.stream().map(RedisProcess::pid).toList();
    }

    /** Stops the servers and deletes their files. */
    @Override
    public synchronized void close() {
        servers.forEach(RedisProcess::destroy);
        servers.clear();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    private void formCluster() {
        RedisProcess first = servers.get(0);
        for (RedisProcess other : servers.subList(1, servers.size())) {
            other.call("CLUSTER", "MEET", RedisProcess.HOST, Integer.toString(first.port()));
        }
        for (int i = 0; i < servers.size(); i++) {
            int from = SLOTS * i / servers.size();
            int to = SLOTS * (i + 1) / servers.size();
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            IntStream.range(from, to).mapToObj(Integer::toString).forEach(command::add);
            servers.get(i).call(command.toArray(String[]::new));
        }
        awaitClusterReady();
    }

    /** Waits until every node sees all masters and every slot served. */
    private void awaitClusterReady() {
        long deadline = System.currentTimeMillis() + CLUSTER_READY_TIMEOUT_MILLIS;
        String lastInfo = "";
        while (System.currentTimeMillis() < deadline) {
            boolean ready = true;
            for (RedisProcess server : servers) {
                lastInfo = String.valueOf(server.call("CLUSTER", "INFO"));
                ready &= lastInfo.contains("cluster_state:ok")
                        && lastInfo.contains("cluster_known_nodes:" + servers.size())
                        && lastInfo.contains("cluster_slots_ok:" + SLOTS);
            }
            if (ready) {
                return;
            }
            RedisProcess.pause(50);
        }
        throw new IllegalStateException("Redis Cluster on ports " + ports() + " not ready after "
                + CLUSTER_READY_TIMEOUT_MILLIS + " ms; last CLUSTER INFO: " + lastInfo);
    }

    private void checkStarted() {
        if (servers.isEmpty()) {
            throw new IllegalStateException("the Redis fixture is not started: call start(), or register it "
                    + "with @RegisterExtension on a static field");
        }
    }

    @Override
    public String toString() {
        return (cluster ? "Redis Cluster " : "Redis ") + (servers.isEmpty() ? "(stopped)" : ports());
    }
}
