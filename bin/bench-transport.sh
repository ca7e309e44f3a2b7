#!/usr/bin/env bash
# Transport micro-benchmark: bulk push throughput beside iperf3 over loopback, and the rate of small
# messages with and without client-side batching. Prints a table and rewrites the 'transport' section
# of docs/benchmarks.md.
#
#   bin/bench-transport.sh [--seconds N] [--warmup N] [--rounds N] [--connections 1,4]
#                          [--output docs/benchmarks.md | --output -] [--no-iperf]
#
# Builds the benchmark module first when it is missing or older than the sources, and installs iperf3
# with apt-get when it is missing (as root; otherwise it says what to install). Figures are only worth
# recording from a machine with nothing else running.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options, e.g. a profiler:
#                           "-XX:StartFlightRecording=filename=transport.jfr,settings=profile"
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

wants_iperf=true
for arg in "$@"; do
  if [ "$arg" = "--no-iperf" ]; then wants_iperf=false; fi
done
if $wants_iperf && ! command -v iperf3 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing iperf3..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q iperf3
  else
    echo "iperf3 is not installed: run 'sudo apt-get install -y iperf3' (or your system's" \
      "equivalent) first, or pass --no-iperf to measure Sluice alone." >&2
    exit 1
  fi
fi

# A fixed 1 GiB heap with G1; leak detection off, since its sampling would be measured too.
# shellcheck disable=SC2086
exec "$JAVA" -Xms1g -Xmx1g -XX:+UseG1GC -Dio.netty.leakDetection.level=disabled \
  -Dlog4j2.level=warn ${SLUICE_BENCH_JAVA_OPTS:-} \
  -cp "$(benchmark_jar):benchmark/target/lib/*" \
  io.sluice.benchmark.transport.TransportBenchmark --command "bin/bench-transport.sh${*:+ $*}" "$@"
