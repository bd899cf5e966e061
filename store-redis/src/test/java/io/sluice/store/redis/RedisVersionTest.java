package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which Redis calls functions: the major version read from {@code INFO server}. */
class RedisVersionTest {

    @Test
    void theMajorVersionComesFromRedisVersion() {
        assertThat(LettuceStore.majorVersion("# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\n"))
                .isEqualTo(7);
        assertThat(LettuceStore.majorVersion("# Server\r\nredis_version:6.2.11\r\n")).isEqualTo(6);
        assertThat(LettuceStore.majorVersion("redis_version:10.1.0\n")).isEqualTo(10);
    }

    @Test
    void noOrAnUnreadableVersionIsNone() {
        assertThat(LettuceStore.majorVersion("# Server\r\nredis_mode:standalone\r\n")).isZero();
        assertThat(LettuceStore.majorVersion("redis_version:unknown\r\n")).isZero();
    }
}
