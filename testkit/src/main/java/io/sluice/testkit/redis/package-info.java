/**
 * Real {@code redis-server} processes for tests and benchmarks:
 * {@link io.sluice.testkit.redis.RedisFixture}, a standalone server or a Redis Cluster of
 * three masters on free loopback ports, as a JUnit 5 extension or started by hand.
 */
package io.sluice.testkit.redis;
