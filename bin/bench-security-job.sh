#!/usr/bin/env bash
# What security costs a Spark job: the fault benchmark's job, undisturbed, through three shuffle
# servers (started with bin/start-*.sh), plain, with authentication, with authentication and blocks
# encrypted with Spark's I/O key, and with authentication over TLS; interleaved rounds, ratios to
# the plain runs. Rewrites the 'security-job' section of docs/benchmarks.md. Exits 1 when a run
# failed or an answer differs from the built-in shuffle's. Takes about ten minutes.
#
#   bin/bench-security-job.sh [--rounds N] [--maps N] [--reduces N] [--records N]
#                             [--master local[2]] [--output benchmark/target/security-job]
#                             [--markdown docs/benchmarks.md|-]
#
# Builds the project first when a jar is missing or older than the sources. Figures are only worth
# recording from a machine with nothing else running.
set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SLUICE_HOME"
# shellcheck source=bin/sluice-spark-env.sh
. "$SLUICE_HOME/bin/sluice-spark-env.sh"

if [ ! -d benchmark/target/lib ] || [ ! -d examples/target/spark-home/jars ] \
    || [ ! -d server/target/lib ] || [ ! -d coordinator/target/lib ] \
    || sluice_stale "$(sluice_benchmark_jar)" pom.xml common server coordinator benchmark \
    || sluice_stale "$(sluice_shaded_jar)" pom.xml common client-spark; then
  echo "== Building Sluice (mvn -B -DskipTests package)"
  mvn -B -q -DskipTests package
fi

export SLUICE_SPARK_JAVA_OPTS="${SPARK_JAVA_OPENS[*]}"
exec "$JAVA" -Xmx512m -Dlog4j2.level=warn \
  -cp "$(sluice_benchmark_jar):benchmark/target/lib/*" \
  io.sluice.benchmark.fault.SecurityJobBenchmark --home "$SLUICE_HOME" \
  --command "bin/bench-security-job.sh${*:+ $*}" "$@"
