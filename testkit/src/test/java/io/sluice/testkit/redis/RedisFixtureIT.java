package io.sluice.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisFixtureIT {

    @Test
    void standaloneServesCommandsAndComesBackEmptyAfterRestart() {
        try (RedisFixture redis = RedisFixture.standalone().start()) {
            assertThat(redis.ports()).hasSize(1);
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.ports().get(0));
            assertThat(redis.command(0, "SET", "k", "v")).isEqualTo("OK");
            assertThat(redis.command(0, "GET", "k")).isEqualTo("v");

            redis.restart();

            assertThat(redis.command(0, "GET", "k")).isNull();
            assertThat(redis.command(0, "PING")).isEqualTo("PONG");
        }
    }

    @Test
    void clusterHasThreeMastersServingAllSlotsAlsoAfterRestart() {
        try (RedisFixture redis = RedisFixture.cluster().start()) {
            assertThat(redis.ports()).hasSize(3).doesNotHaveDuplicates();
            assertClusterHealthy(redis);

            redis.restart();

            assertClusterHealthy(redis);
        }
    }

    @Test
    void aMixedClusterRunsTheBundledSixTwoOnItsFirstMasterAndTheExecutableFoundOnTheOthers() {
        try (RedisFixture redis = RedisFixture.mixedCluster().start()) {
            assertClusterHealthy(redis);
            assertThat(redis.version(0)).startsWith("6.2.");
            assertThat(String.valueOf(redis.command(0, "INFO", "server"))).contains("redis_version:" + redis.version(0));
            for (int i = 1; i < 3; i++) {
                assertThat(redis.version(i)).isEqualTo(redis.version());
                assertThat(String.valueOf(redis.command(i, "INFO", "server"))).contains("redis_version:" + redis.version());
            }
        }
    }

    @Test
    void stoppedServersRefuseConnections() {
        RedisFixture redis = RedisFixture.standalone().start();
        int port = redis.ports().get(0);
        redis.close();

        assertThatThrownBy(redis::ports).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Resp.call("127.0.0.1", port, "PING")).isInstanceOf(java.io.IOException.class);
    }

    @Test
    void errorRepliesAreExceptions() {
        try (RedisFixture redis = RedisFixture.standalone().start()) {
            assertThatThrownBy(() -> redis.command(0, "NO-SUCH-COMMAND"))
                    .isInstanceOf(RedisReplyException.class)
                    .hasMessageContaining("unknown command");
        }
    }

    @Test
    void bundledBinaryRunsWhenAsked() {
        RedisBinary bundled = RedisBinary.find("bundled", System.getenv("PATH"));
        assertThat(bundled.origin()).contains("embedded-redis", "sluice.redis.server=bundled");
        assertThat(bundled.version()).startsWith("6.2.");

        RedisProcess server = RedisProcess.start(bundled, true);
        try {
            assertThat(server.call("PING")).isEqualTo("PONG");
            assertThat(String.valueOf(server.call("INFO", "server"))).contains("redis_version:6.2.");
        } finally {
            server.destroy();
        }
    }

    @Test
    void withoutRedisOnThePathTheBundledBinaryIsTaken(@TempDir Path emptyDirectory) {
        for (String path : new String[] {null, "", emptyDirectory.toString()}) {
            RedisBinary binary = RedisBinary.find("", path);

            assertThat(binary.origin()).as("PATH=%s", path).contains("embedded-redis", "none on the PATH");
            assertThat(binary.version()).startsWith("6.2.");
        }
    }

    @Test
    void redisOnThePathComesBeforeTheBundledBinary(@TempDir Path directory) throws Exception {
        Path onPath = Files.copy(RedisBinary.find("bundled", null).executable(), directory.resolve("redis-server"),
                StandardCopyOption.COPY_ATTRIBUTES);

        RedisBinary binary = RedisBinary.find("", "/no/such/directory" + File.pathSeparator + directory);

        assertThat(binary.executable()).isEqualTo(onPath);
        assertThat(binary.origin()).contains("PATH");
    }

    @Test
    void anExecutableThatIsNotThereIsAClearError() {
        assertThatThrownBy(() -> RedisBinary.find("/no/such/redis-server", System.getenv("PATH")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sluice.redis.server")
                .hasMessageContaining("/no/such/redis-server");
    }

    private static void assertClusterHealthy(RedisFixture redis) {
        for (int i = 0; i < 3; i++) {
            String info = (String) redis.command(i, "CLUSTER", "INFO");
            assertThat(info).contains("cluster_state:ok", "cluster_known_nodes:3", "cluster_size:3");
            @SuppressWarnings("unchecked")
            List<Object> slots = (List<Object>) redis.command(i, "CLUSTER", "SLOTS");
            assertThat(slots).hasSize(3);
        }
    }
}
