#!/usr/bin/env bash
# Measures the gateway (docs/benchmarks.md, "The gateway"): builds the module in the reactor and
# runs io.sluice.gateway.GatewayBenchmark from target/ with the test class path.
#
#   gateway/bench.sh latency [workers] [requests]     # limiter's added latency on Redis, with Redis floors
#   gateway/bench.sh blockcache [workers] [requests]  # a client over its limit: 429s from the block cache
#   gateway/bench.sh leasing [workers] [requests]     # admitted requests served from leases
#   gateway/bench.sh hazelcast [workers] [requests]   # limiter's added latency as a Hazelcast member
#   gateway/bench.sh hazelcast-client [workers] [requests]  # the same as a Hazelcast client (the default mode)
#   gateway/bench.sh flood [workers] [requests]       # 100,000 invented API keys: memory and Redis keys
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q -B -pl gateway -am package -DskipTests
exec java -Xmx1g -XX:-UseDynamicNumberOfCompilerThreads -cp "gateway/target/test-classes:gateway/target/classes:$(cat gateway/target/bench.classpath)" \
  io.sluice.gateway.GatewayBenchmark "$@"
