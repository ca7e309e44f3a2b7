#!/usr/bin/env bash
# Coordinator benchmark: assignment latency and rate with 5,000 registered servers (1,000 and 10,000
# partitions per request), and the CPU that heartbeats of 5,000 servers at 1 Hz cost. Prints the
# figures and rewrites the 'coordinator' section of docs/benchmarks.md.
#
#   bin/bench-coordinator.sh [--seconds 10] [--output docs/benchmarks.md | --output -]
#
# Builds the benchmark module first when it is missing or older than the sources. The run opens
# 5,000 loopback connections (10,000 file descriptors): raise `ulimit -n` if it is lower.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options, e.g. a profiler:
#                           "-XX:StartFlightRecording=filename=coordinator.jfr,settings=profile"
set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SLUICE_HOME"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

benchmark_jar() {
  ls benchmark/target/sluice-benchmark-*.jar 2>/dev/null | grep -v -- '-tests.jar' | head -n 1 || true
}

needs_build() {
  local jar
  jar="$(benchmark_jar)"
  [ -z "$jar" ] || [ ! -d benchmark/target/lib ] && return 0
  [ -n "$(find pom.xml common benchmark server coordinator -path '*/target' -prune -o \
    \( -name pom.xml -o -path '*/src/main/*' \) -type f -newer "$jar" -print -quit)" ]
}

if needs_build; then
  echo "Building the benchmark module..."
  # Tests are neither compiled nor run: the benchmark needs only the main code.
  mvn -B -q -Dmaven.test.skip=true package -pl benchmark -am
fi

# A fixed 1 GiB heap with G1, as bin/start-coordinator.sh gives a coordinator; leak detection off.
# shellcheck disable=SC2086
exec "$JAVA" -Xms1g -Xmx1g -XX:+UseG1GC -Dio.netty.leakDetection.level=disabled \
  -Dlog4j2.level=warn ${SLUICE_BENCH_JAVA_OPTS:-} \
  -cp "$(benchmark_jar):benchmark/target/lib/*" \
  io.sluice.benchmark.coordinator.AssignmentBenchmark --command "bin/bench-coordinator.sh${*:+ $*}" "$@"
