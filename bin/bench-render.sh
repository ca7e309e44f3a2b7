#!/usr/bin/env bash
# Renders benchmark records into their Markdown files again: each docs/benchmarks/<name>.json that a
# benchmark wrote (its settings, tables, targets and raw figures) into the section <name> of the file
# it names, the same way the benchmark wrote it. With no argument, every record in docs/benchmarks/.
#
#   bin/bench-render.sh [docs/benchmarks/server.json ...]
. "$(dirname "$0")/bench-lib.sh"

build_if_needed
if [ "$#" -eq 0 ]; then
  set -- docs/benchmarks/*.json
fi
exec "$JAVA" -cp "$(benchmark_classpath)" io.sluice.benchmark.report.RenderRecords "$@"
