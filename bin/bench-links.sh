#!/usr/bin/env bash
# The links benchmark: the fault benchmark's RDD job and SQL queries of the TPC benchmark, each
# undisturbed, on a Spark standalone cluster and Sluice's daemons spread over hosts of a network
# test bed (bin/netbed.sh: network namespaces on this machine), every host's link capped (1 and
# 10 Gbit/s by default); rounds alternate Spark's built-in shuffle and Sluice. Reports the ratio of
# their times per job and cap, the tasks' and the servers' CPU per GiB shuffled, and whether every
# answer agrees; rewrites the 'links' section of docs/benchmarks/links.md. Needs root. Exits 1 when
# a run failed or an answer differs.
#
#   bin/bench-links.sh [--rates 1gbit,10gbit] [--rounds N] [--replicas N] [--maps N]
#                      [--reduces N] [--records N] [--jobs rdd,sql]
#                      [--sql-queries aggregate,join] [--sql-scale SF|smoke]
#                      [--output benchmark/target/links] [--markdown docs/benchmarks/links.md|-]
#
# Builds the project first when a jar is missing or older than the sources. Figures are only worth
# recording from a machine with nothing else running.
set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SLUICE_HOME"
# shellcheck source=bin/sluice-spark-env.sh
. "$SLUICE_HOME/bin/sluice-spark-env.sh"

sluice_build_for_jobs
sluice_run_job_benchmark io.sluice.benchmark.links.LinkBenchmark "bin/bench-links.sh${*:+ $*}" "$@"
