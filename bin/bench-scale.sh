#!/usr/bin/env bash
# The server's hard bounds at cluster scale (issue 11), against servers started with
# bin/start-server.sh: about 1,000 concurrent client connections from one JVM (well-behaved map
# tasks pushing through MapOutputPusher, clients pipelining without reading, clients stalling
# mid-frame) with the server's direct memory, network pool and heap sampled against their bounds
# and the data read back; the commit bookkeeping of 10,000 maps x 10,000 partitions over the wire
# (heap per pair); and commit and fetch latency p99 while a large application's thousands of files
# are unregistered, against the same just before. Prints a table and rewrites the 'scale' section
# of docs/benchmarks/scale.md. Takes a few minutes.
#
#   bin/bench-scale.sh [--pushers N] [--pipeliners N] [--stallers N] [--maps N] [--partitions N]
#                      [--large-partitions N] [--no-connections] [--no-commits] [--no-unregister]
#                      [--output docs/benchmarks/scale.md | --output -]     (--help lists all flags)
#
# Builds the modules first when they are missing or older than the sources. The servers' data and
# logs go to benchmark/target/bench-scale.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options of the clients' JVM
#   SLUICE_SERVER_HEAP      the servers' heap (default: derived from their configuration, as
#                           bin/start-server.sh does)
. "$(dirname "$0")/bench-lib.sh"

if ! has_flag --help "$@"; then
  build_if_needed
fi

# The clients' JVM has room for about a thousand client threads.
run_benchmark io.sluice.benchmark.server.ScaleBenchmark "bin/bench-scale.sh${*:+ $*}" \
  -Xss512k -XX:MaxDirectMemorySize=2g -- "$@"
