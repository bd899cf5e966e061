package io.sluice.store.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.sluice.testkit.HeldState;
import io.sluice.testkit.KeyStateFormats;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The conformance kit's own connection to the Redis a store uses: which keys a client holds,
 * looked up by its hash tag on every master, whatever the key schema; and the previous
 * schema's writer.
 */
final class RedisKeysProbe implements AutoCloseable {

    /**
     * Under the test-only clock the store keeps keys this much longer (ms) than their reset, so
     * that they expire by virtual time only (decide.lua).
     */
    private static final long TEST_CLOCK_TTL_SLACK_MILLIS = 600_000;

    private final AbstractRedisClient client;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> commands;

    private RedisKeysProbe(AbstractRedisClient client, StatefulConnection<String, String> connection,
                           RedisClusterCommands<String, String> commands) {
        this.client = client;
        this.connection = connection;
        this.commands = commands;
    }

    static RedisKeysProbe standalone(String uri) {
        RedisClient client = RedisClient.create(uri);
        StatefulRedisConnection<String, String> connection = client.connect();
        return new RedisKeysProbe(client, connection, connection.sync());
    }

    static RedisKeysProbe cluster(String uri) {
        RedisClusterClient client = RedisClusterClient.create(uri);
        StatefulRedisClusterConnection<String, String> connection = client.connect();
        // KEYS on a cluster connection asks every master.
        return new RedisKeysProbe(client, connection, connection.sync());
    }

    /** Whether Redis holds any key of this client (an expired key is never listed). */
    boolean holdsAnythingFor(String client) {
        return !commands.keys("*" + RedisKeys.hashTag(client) + "*").isEmpty();
    }

    /**
     * Writes a client's state in key schema v1, as the store on the test-only clock wrote it:
     * one key per limit, {@code sluice:v1:{<client hash>}:<limit name>}, holding
     * {@code expiresAt,state...} in decimal, with a time to live of its reset plus the slack.
     */
    void writeVersion1(String client, List<HeldState> states, long nowMicros) {
        String hashTag = RedisKeys.hashTag(client);
        for (HeldState held : states) {
            String value = held.expiresAtMicros() + "," + Arrays.stream(KeyStateFormats.stateVersion1(held))
                    .mapToObj(Long::toString).collect(Collectors.joining(","));
            long ttlMillis = (held.expiresAtMicros() - nowMicros + 999) / 1_000 + TEST_CLOCK_TTL_SLACK_MILLIS;
            commands.set("sluice:v1:" + hashTag + ":" + held.limit().name(), value, SetArgs.Builder.px(ttlMillis));
        }
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
