#!/usr/bin/env bash
# What security costs a Spark job: the fault benchmark's job, undisturbed, through three shuffle
# servers (started with bin/start-*.sh), plain, with authentication, with authentication and blocks
# encrypted with Spark's I/O key, and with authentication over TLS; interleaved rounds, ratios to
# the plain runs. Rewrites docs/benchmarks/security-job.md. Exits 1 when a run failed or an answer
# differs from the built-in shuffle's. Takes about ten minutes.
#
#   bin/bench-security-job.sh [--rounds N] [--maps N] [--reduces N] [--records N]
#                             [--master local[2]] [--output benchmark/target/security-job]
#                             [--markdown docs/benchmarks/security-job.md|-]
#
# Builds the project first when a jar is missing or older than the sources. Figures are only worth
# recording from a machine with nothing else running.
set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SLUICE_HOME"
# shellcheck source=bin/sluice-spark-env.sh
. "$SLUICE_HOME/bin/sluice-spark-env.sh"

sluice_build_for_jobs
sluice_run_job_benchmark io.sluice.benchmark.fault.SecurityJobBenchmark "bin/bench-security-job.sh${*:+ $*}" "$@"
