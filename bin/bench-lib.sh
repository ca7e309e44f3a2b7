#!/usr/bin/env bash
# Shared by bin/bench-*.sh: building the benchmark module when it is missing or stale, installing the
# tools a benchmark compares with, and the benchmark's classpath. Not meant to be run by itself.
set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SLUICE_HOME"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

benchmark_jar() {
  ls benchmark/target/sluice-benchmark-*.jar 2>/dev/null | grep -v -- '-tests.jar' | head -n 1 || true
}

# The benchmark's classpath: its jar and its runtime dependencies.
benchmark_classpath() {
  echo "$(benchmark_jar):benchmark/target/lib/*"
}

needs_build() {
  local jar
  jar="$(benchmark_jar)"
  [ -z "$jar" ] || [ ! -d benchmark/target/lib ] && return 0
  # The server benchmark starts bin/start-server.sh, which runs the server module's own jar.
  [ -z "$(ls server/target/sluice-server-*.jar 2>/dev/null)" ] || [ ! -d server/target/lib ] && return 0
  [ -n "$(find pom.xml common client-core test-fixtures test-cluster benchmark server coordinator -path '*/target' -prune -o \
    \( -name pom.xml -o -path '*/src/main/*' \) -type f -newer "$jar" -print -quit)" ]
}

build_if_needed() {
  if needs_build; then
    echo "Building the benchmark module..."
    # Tests are neither compiled nor run: the benchmark needs only the main code.
    mvn -B -q -Dmaven.test.skip=true package -pl benchmark -am
  fi
}

# require_tool <command> <Debian package> <what to pass instead>: installs the package with apt-get
# when the command is missing (as root; otherwise it says what to install and exits).
require_tool() {
  local tool="$1" package="$2" instead="$3"
  if command -v "$tool" >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = 0 ]; then
    echo "Installing $package..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "$package"
  else
    echo "$tool is not installed: run 'sudo apt-get install -y $package' (or your system's" \
      "equivalent) first, or pass $instead." >&2
    exit 1
  fi
}

# has_flag <flag> <args...>: whether the flag is among the arguments.
has_flag() {
  local flag="$1"
  shift
  local arg
  for arg in "$@"; do
    if [ "$arg" = "$flag" ]; then return 0; fi
  done
  return 1
}

# run_benchmark <main class> <command line to record> <JVM options...> -- <flags...>: runs a
# benchmark that holds Sluice's transport in its own JVM with a fixed 1 GiB heap, G1, leak
# detection off (its sampling would be measured too), the daemons' Netty direct-memory options
# (printed by io.sluice.server.ServerJvmOptions, their one home: without them Netty zeroes every
# new chunk of its pools where the servers' does not), the given options and
# SLUICE_BENCH_JAVA_OPTS.
run_benchmark() {
  local main="$1" command="$2"
  shift 2
  local jvm=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    jvm+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  local netty
  netty="$("$JAVA" -cp "$(benchmark_classpath)" io.sluice.server.ServerJvmOptions --netty)"
  # shellcheck disable=SC2086
  exec "$JAVA" -Xms1g -Xmx1g -XX:+UseG1GC $netty "${jvm[@]}" \
    -Dio.netty.leakDetection.level=disabled -Dlog4j2.level=warn ${SLUICE_BENCH_JAVA_OPTS:-} \
    -cp "$(benchmark_classpath)" "$main" --command "$command" "$@"
}
