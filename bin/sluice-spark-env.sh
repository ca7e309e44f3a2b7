#!/usr/bin/env bash
# Sourced by bin/run-example.sh, bin/sluice-bench and the Spark job benchmarks (not meant to be run
# by itself): where Spark and the client jar are in a built checkout, the JVM options Spark needs
# on Java 17, and building and running the job benchmarks.
#
# SLUICE_SPARK picks the Spark line: 3.5 (the default), 3.4 or 3.3 (Scala 2.12), or 4 (Scala 2.13).
# SPARK_HOME is that line's examples module's target/spark-home, whose jars/ the build assembles
# from Maven Central; the client jar and the example job are that line's too.

SLUICE_HOME="${SLUICE_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
case "${SLUICE_SPARK:-3.5}" in
  3.5) SLUICE_CLIENT_MODULE=client-spark SLUICE_EXAMPLES_MODULE=examples SPARK_SCALA_VERSION=2.12 ;;
  3.4|3.3) SLUICE_CLIENT_MODULE=client-spark-$SLUICE_SPARK
     SLUICE_EXAMPLES_MODULE=examples-spark-$SLUICE_SPARK SPARK_SCALA_VERSION=2.12 ;;
  4) SLUICE_CLIENT_MODULE=client-spark-4 SLUICE_EXAMPLES_MODULE=examples-spark-4
     SPARK_SCALA_VERSION=2.13 ;;
  *) echo "SLUICE_SPARK is '$SLUICE_SPARK': set it to 3.5, 3.4, 3.3 or 4" >&2
     return 1 2>/dev/null || exit 1 ;;
esac
export SPARK_HOME="$SLUICE_HOME/$SLUICE_EXAMPLES_MODULE/target/spark-home" SPARK_SCALA_VERSION
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

# Spark on Java 17 needs these opens: bin/spark-java-opens.args, the list the build's test JVMs
# read too (as a java @argument file).
read -r -a SPARK_JAVA_OPENS <<<"$(tr '\n' ' ' <"$SLUICE_HOME/bin/spark-java-opens.args")"

# The Spark line's shaded client jar (empty when it is not built).
sluice_shaded_jar() {
  ls "$SLUICE_HOME/$SLUICE_CLIENT_MODULE"/target/sluice-client-spark-*-shaded.jar 2>/dev/null \
    | head -n 1 || true
}

# The Spark line's examples jar, which holds the README's example job (empty when not built).
sluice_examples_jar() {
  ls "$SLUICE_HOME/$SLUICE_EXAMPLES_MODULE"/target/sluice-examples-*.jar 2>/dev/null | head -n 1 \
    || true
}

# The benchmark module's jar, which holds the benchmark jobs (empty when not built).
sluice_benchmark_jar() {
  ls "$SLUICE_HOME"/benchmark/target/sluice-benchmark-*.jar 2>/dev/null | grep -v -- '-tests' \
    | head -n 1 || true
}

# The benchmarks of Spark jobs other than bin/sluice-bench (which takes --spark 3.5|4) run on
# Spark 3.5 only: they find its home and client jar themselves.
sluice_require_spark_35() {
  if [ "${SLUICE_SPARK:-3.5}" != 3.5 ]; then
    echo "the Spark job benchmarks run on Spark 3.5 only; unset SLUICE_SPARK (it is '$SLUICE_SPARK')" >&2
    exit 1
  fi
}

# True when a jar is missing or a source or POM under the given paths is newer than the jar (any
# source root under src/ counts, such as src/spark-3.5 or src/tpc-job, but not src/test).
sluice_stale() {
  local jar="$1"
  shift
  [ -z "$jar" ] || [ -n "$(find "$@" \( -path '*/target' -o -path '*/src/test' \) -prune -o \
    \( -name pom.xml -o -path '*/src/*' \) -type f -newer "$jar" -print -quit)" ]
}

# Builds Sluice (mvn package, tests skipped) when a jar or directory that a benchmark of Spark jobs
# through the bin/ daemons needs is missing or older than its sources. Run from $SLUICE_HOME.
sluice_build_for_jobs() {
  sluice_require_spark_35
  if [ ! -d benchmark/target/lib ] || [ ! -d examples/target/spark-home/jars ] \
      || [ ! -d server/target/lib ] || [ ! -d coordinator/target/lib ] \
      || sluice_stale "$(sluice_benchmark_jar)" pom.xml common client-core test-fixtures test-cluster server coordinator benchmark \
      || sluice_stale "$(sluice_shaded_jar)" pom.xml common client-core client-spark; then
    echo "== Building Sluice (mvn -B -DskipTests package)"
    mvn -B -q -DskipTests package
  fi
}

# sluice_run_job_benchmark <main class> <command line to record> [flags...]: runs a benchmark of
# the benchmark module that submits Spark jobs (SparkSubmit JVMs of their own, with these opens).
sluice_run_job_benchmark() {
  local main="$1" command="$2"
  shift 2
  export SLUICE_SPARK_JAVA_OPTS="${SPARK_JAVA_OPENS[*]}"
  exec "$JAVA" -Xmx512m -Dlog4j2.level=warn \
    -cp "$(sluice_benchmark_jar):$SLUICE_HOME/benchmark/target/lib/*" \
    "$main" --home "$SLUICE_HOME" --command "$command" "$@"
}
