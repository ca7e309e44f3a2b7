#!/usr/bin/env bash
# The cost of authentication and TLS on the push path: bulk push throughput, CPU per GiB and the
# time to open a connection, plain, authenticated, over TLS, and both, in interleaved rounds of one
# invocation. Prints a table and rewrites the 'security' section of docs/benchmarks/security.md.
#
#   bin/bench-security.sh [--seconds N] [--warmup N] [--rounds N] [--connects N] [--probes]
#                         [--modes plain,auth,tls,tls_auth]
#                         [--output docs/benchmarks/security.md | --output -]
#
# --modes runs some of the modes (plain always, as their reference), e.g. to profile one; its
# record would replace the whole section, so pair it with --output -.
# --probes also measures the cipher alone (sealing and opening records in memory), the floor of
# what TLS adds; without it the report gives what TLS adds and leaves that split out.
#
# Builds the benchmark module first when it is missing or older than the sources. Figures are only
# worth recording from a machine with nothing else running.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options, e.g. a profiler
. "$(dirname "$0")/bench-lib.sh"

build_if_needed

run_benchmark io.sluice.benchmark.transport.SecurityBenchmark "bin/bench-security.sh${*:+ $*}" \
  -- "$@"
