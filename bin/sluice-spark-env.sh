#!/usr/bin/env bash
# Sourced by bin/run-example.sh and bin/sluice-bench (not meant to be run by itself): where Spark and
# the client jar are in a built checkout, and the JVM options Spark needs on Java 17.
#
# SPARK_HOME is examples/target/spark-home, whose jars/ the build assembles from Maven Central.

SLUICE_HOME="${SLUICE_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export SPARK_HOME="$SLUICE_HOME/examples/target/spark-home" SPARK_SCALA_VERSION=2.12
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

# Spark on Java 17 needs these opens (the same list as the parent POM's sluice.addOpens).
SPARK_JAVA_OPENS=(
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
)

# The shaded Spark client jar (empty when it is not built).
sluice_shaded_jar() {
  ls "$SLUICE_HOME"/client-spark/target/sluice-client-spark-*-shaded.jar 2>/dev/null | head -n 1 || true
}

# The examples module's jar, which holds the README's example job (empty when not built).
sluice_examples_jar() {
  ls "$SLUICE_HOME"/examples/target/sluice-examples-*.jar 2>/dev/null | head -n 1 || true
}

# The benchmark module's jar, which holds the benchmark jobs (empty when not built).
sluice_benchmark_jar() {
  ls "$SLUICE_HOME"/benchmark/target/sluice-benchmark-*.jar 2>/dev/null | grep -v -- '-tests' \
    | head -n 1 || true
}

# True when a jar is missing or a source or POM under the given paths is newer than the jar.
sluice_stale() {
  local jar="$1"
  shift
  [ -z "$jar" ] || [ -n "$(find "$@" -path '*/target' -prune -o \( -name pom.xml -o \
    -path '*/src/main/*' \) -type f -newer "$jar" -print -quit)" ]
}
