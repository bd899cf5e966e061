package io.sluice.jmh;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.sluice.testkit.redis.RedisFixture;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The floor of a Redis decision: one plain Lettuce {@code EVALSHA} of a minimal token-bucket
 * script ({@code token-bucket-floor.lua}) on one shared connection. It enforces only the
 * shape's first limit, whatever the shape: it is the cost of one round trip, not a peer.
 */
final class EvalshaFloorLimiter implements Limiter {

    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> connection;
    private final RedisScriptingCommands<String, String> commands;
    private final String sha;
    private final String[] arguments;

    EvalshaFloorLimiter(RedisFixture redis, LimitShape shape) {
        if (redis.isCluster()) {
            RedisClusterClient cluster = RedisClusterClient.create(redis.uri());
            StatefulRedisClusterConnection<String, String> clusterConnection = cluster.connect();
            this.client = cluster;
            this.connection = clusterConnection;
            this.commands = clusterConnection.sync();
        } else {
            RedisClient standalone = RedisClient.create(redis.uri());
            StatefulRedisConnection<String, String> standaloneConnection = standalone.connect();
            this.client = standalone;
            this.connection = standaloneConnection;
            this.commands = standaloneConnection.sync();
        }
        // On a cluster connection SCRIPT LOAD goes to every node.
        this.sha = commands.scriptLoad(script());
        LimitShape.Spec limit = shape.specs().get(0);
        long periodMicros = limit.period().toNanos() / 1_000;
        long microsPerToken = (periodMicros + limit.permits() - 1) / limit.permits();
        this.arguments = new String[] {Long.toString(limit.permits()), Long.toString(microsPerToken), "1"};
    }

    @Override
    public boolean tryAcquire(String key, long cost) {
        String[] args = cost == 1 ? arguments : new String[] {arguments[0], arguments[1], Long.toString(cost)};
        Long admitted = commands.evalsha(sha, ScriptOutputType.INTEGER, new String[] {key}, args);
        return admitted == 1L;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }

    private static String script() {
        try (InputStream in = EvalshaFloorLimiter.class.getResourceAsStream("token-bucket-floor.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
