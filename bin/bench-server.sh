#!/usr/bin/env bash
# Shuffle server benchmark: a server started with bin/start-server.sh in its own JVM, 1, 4 and 16
# clients pushing over loopback while it flushes to disk and then reading everything back, beside the
# machine's limits measured in the same run (iperf3 over loopback, dd to the data disk); and the
# memory contract: 16 clients push 4 GiB into a 128 MiB buffer.capacity. Prints a table and rewrites
# the 'server' section of docs/benchmarks/server.md. Takes a few minutes.
#
#   bin/bench-server.sh [--clients 1,4,16] [--rounds N] [--run-mib N] [--contract-mib N]
#                       [--no-contract] [--no-iperf] [--no-profile] [--probes]
#                       [--output docs/benchmarks/server.md | --output -]  (--help lists all flags)
#
# --probes also measures the CPU floors the report sets the server's CPU per GiB against: a bare
# receive into a pool as a server's event loop receives pushes, dd into the page cache, and sendfile
# of a file written past the page cache; without it those comparisons are left out.
#
# Builds the modules first when they are missing or older than the sources, and installs iperf3 with
# apt-get when it is missing (as root; otherwise it says what to install). The servers' data, logs
# and flight recordings go to benchmark/target/bench-server. Figures are only worth recording from a
# machine with nothing else running.
#
# Environment:
#   JAVA_HOME               Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_BENCH_JAVA_OPTS  extra JVM options of the clients' JVM
#   SLUICE_BENCH_SERVER_JAVA_OPTS
#                           extra JVM options of the server's JVM (an -agentpath profiler, say)
#   SLUICE_SERVER_HEAP      the server's heap (default: derived from its configuration, as
#                           bin/start-server.sh does)
. "$(dirname "$0")/bench-lib.sh"

if has_flag --help "$@"; then
  set -- --help
else
  build_if_needed
  if ! has_flag --no-iperf "$@"; then
    require_tool iperf3 iperf3 "--no-iperf to measure without the loopback limit"
  fi
fi

# The clients' JVM has room for the readers' responses in flight (16 readers x 16 MiB) beside the
# default pools.
run_benchmark io.sluice.benchmark.server.ServerBenchmark "bin/bench-server.sh${*:+ $*}" \
  -XX:MaxDirectMemorySize=2g -- "$@"
