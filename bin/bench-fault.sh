#!/usr/bin/env bash
# The fault benchmark: one Spark job through three shuffle servers (started with bin/start-*.sh),
# undisturbed and with one server killed with SIGKILL or frozen with SIGSTOP mid-map and
# mid-reduce, with 1 and 2 copies of every partition, several interleaved rounds, and the built-in
# shuffle on the same job for reference. Reports ratios to the undisturbed run, Spark's stage
# submissions and failed tasks, and whether every answer equals the built-in shuffle's; rewrites
# the 'fault' section of docs/benchmarks/fault.md. Exits 1 when a run failed or an answer differs.
# Takes about fifteen minutes.
#
# The network's faults run the servers on a test bed (bin/netbed.sh, root): a server's link cut
# mid-map or mid-reduce (packets dropped, no reset) and a server on a link a tenth as fast as the
# others' (--link-rate, default 1gbit); they rewrite the 'fault-net' section instead:
#
#   bin/bench-fault.sh --cases none,cut-map,cut-reduce,slow
#
#   bin/bench-fault.sh [--rounds N] [--replicas 1,2]
#                      [--cases none,map,reduce,freeze-map,freeze-reduce,cut-map,cut-reduce,slow]
#                      [--link-rate 1gbit] [--maps N] [--reduces N] [--records N]
#                      [--master local[2,4]] [--driver-memory 3g]
#                      [--output benchmark/target/fault] [--markdown docs/benchmarks/fault.md|-]
#
# Builds the project first when a jar is missing or older than the sources. Figures are only worth
# recording from a machine with nothing else running. Each Spark run's log is in <output>/logs; the
# job logs at Spark's WARN level unless SLUICE_BENCH_LOG_LEVEL says otherwise (INFO shows Sluice's
# own lines: pushes that failed, relocations, readers moving to a replica).
set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$SLUICE_HOME"
# shellcheck source=bin/sluice-spark-env.sh
. "$SLUICE_HOME/bin/sluice-spark-env.sh"

sluice_build_for_jobs
sluice_run_job_benchmark io.sluice.benchmark.fault.FaultBenchmark "bin/bench-fault.sh${*:+ $*}" "$@"
