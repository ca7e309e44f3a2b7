#!/usr/bin/env bash
# Transport micro-benchmark: bulk push throughput beside iperf3 over loopback, and the rate of small
# messages with and without client-side batching. Prints a table and rewrites the 'transport' section
# of docs/benchmarks/transport.md.
#
#   bin/bench-transport.sh [--seconds N] [--warmup N] [--rounds N] [--connections 1,4]
#                          [--output docs/benchmarks/transport.md | --output -] [--no-iperf]
#
# Builds the benchmark module first when it is missing or older than the sources, and installs iperf3
# with apt-get when it is missing (as root; otherwise it says what to install). Figures are only worth
# recording from a machine with nothing else running.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options, e.g. a profiler:
#                           "-XX:StartFlightRecording=filename=transport.jfr,settings=profile"
. "$(dirname "$0")/bench-lib.sh"

build_if_needed
if ! has_flag --no-iperf "$@"; then
  require_tool iperf3 iperf3 "--no-iperf to measure Sluice alone"
fi

run_benchmark io.sluice.benchmark.transport.TransportBenchmark "bin/bench-transport.sh${*:+ $*}" \
  -- "$@"
