#!/usr/bin/env bash
# Runs the Sluice benchmarks and writes jmh/target/benchmarks/results.md (plus JMH's JSON).
#
#   jmh/run.sh quick                 # minutes per store on a CI-sized machine: 1 and 8 threads
#   jmh/run.sh full                  # the published profile: 1, 2, 8 and 32 threads, longer runs
#   jmh/run.sh quick local,redis     # only these stores (local, redis, hazelcast, ignite)
#   jmh/run.sh full redis impl=SLUICE_GCRA,BUCKET4J keys=HOT topology=STANDALONE
#   SLUICE_JMH_CLASSPATH=my-store.jar:its-deps.jar jmh/run.sh quick custom store=com.example.MyStoreProvider
#                                    # your store (a StoreProvider on SLUICE_JMH_CLASSPATH) beside
#                                    # Sluice's local store and the in-process peers
#
# The benchmarks start their own servers (redis-server processes, Hazelcast and Ignite
# members). Nothing is installed: the module is built in the reactor and run from target/.
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q -B -pl jmh -am package -DskipTests
exec java -cp "jmh/target/classes:$(cat jmh/target/benchmark.classpath)${SLUICE_JMH_CLASSPATH:+:$SLUICE_JMH_CLASSPATH}" \
  -Dsluice.jmh.output=jmh/target/benchmarks \
  io.sluice.jmh.BenchmarkProfiles "$@"
