#!/usr/bin/env bash
# Coordinator benchmark: assignment latency and rate with 5,000 registered servers (1,000 and 10,000
# partitions per request), and the CPU that heartbeats of 5,000 servers at 1 Hz cost. Prints the
# figures and rewrites the 'coordinator' section of docs/benchmarks/coordinator.md.
#
#   bin/bench-coordinator.sh [--seconds 10] [--output docs/benchmarks/coordinator.md | --output -]
#
# Builds the benchmark module first when it is missing or older than the sources. The run opens
# 5,000 loopback connections (10,000 file descriptors): raise `ulimit -n` if it is lower.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options, e.g. a profiler:
#                           "-XX:StartFlightRecording=filename=coordinator.jfr,settings=profile"
. "$(dirname "$0")/bench-lib.sh"

build_if_needed

# A fixed 1 GiB heap, as bin/start-coordinator.sh gives a coordinator.
run_benchmark io.sluice.benchmark.coordinator.AssignmentBenchmark \
  "bin/bench-coordinator.sh${*:+ $*}" -- "$@"
