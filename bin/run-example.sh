#!/usr/bin/env bash
# The main job: starts a coordinator and two shuffle servers with the shipped scripts, with
# authentication on, runs a Spark job (bin/run-example.sh [records] [keys]) through them with only
# the shaded client jar added, prints its result and how many bytes went through Sluice, and stops
# what it started.
#
# SLUICE_SPARK=4 runs it on Spark 4 (Scala 2.13) with the Spark 4 client, SLUICE_SPARK=3.4 or 3.3 on
# that line with its client; the default is Spark 3.5. Builds the project first when needed
# (mvn -B -DskipTests package). Spark comes from Maven Central: the build assembles
# examples/target/spark-home/jars (Spark 3.5) and examples-spark-<line>/target/spark-home/jars.
set -euo pipefail
HOME_DIR="$(cd "$(dirname "$0")/.." && pwd)"
cd "$HOME_DIR"
# shellcheck source=bin/sluice-spark-env.sh
. "$HOME_DIR/bin/sluice-spark-env.sh"

if [ -z "$(sluice_shaded_jar)" ] || [ -z "$(sluice_examples_jar)" ] \
    || [ ! -d "$SPARK_HOME/jars" ] || [ ! -d server/target/lib ] \
    || [ ! -d coordinator/target/lib ]; then
  echo "== Building Sluice (mvn -B -DskipTests package)"
  mvn -B -q -DskipTests package
fi

WORK="${SLUICE_EXAMPLE_DIR:-$HOME_DIR/target/example}"
COORDINATOR_PORT="${SLUICE_EXAMPLE_PORT:-19997}"
rm -rf "$WORK"
mkdir -p "$WORK"
export SLUICE_LOG_DIR="$WORK/logs" SLUICE_PID_DIR="$WORK/run"
# The servers' heaps are sized by bin/start-server.sh from the heap.* keys below.
export SLUICE_COORDINATOR_HEAP=256m

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A plain HTTP GET on loopback with bash alone (no curl needed).
http_get() {
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
  cat <&3
  exec 3<&-
}
for p in "$COORDINATOR_PORT" $((COORDINATOR_PORT + 1)) $((COORDINATOR_PORT + 2)) \
    $((COORDINATOR_PORT + 3)) $((COORDINATOR_PORT + 4)) $((COORDINATOR_PORT + 5)); do
  port_free "$p" || { echo "port $p is in use; set SLUICE_EXAMPLE_PORT to a free range" >&2; exit 1; }
done

# Authentication on, as a cluster should run: one cluster secret for the daemons and the driver,
# readable by this user only (docs/security.md).
SECRET="$WORK/cluster.secret"
(umask 077 && head -c 32 /dev/urandom | base64 >"$SECRET")

cat >"$WORK/coordinator.conf" <<CONF
coordinator.bind.host 127.0.0.1
coordinator.port $COORDINATOR_PORT
coordinator.http.port $((COORDINATOR_PORT + 1))
auth.enabled true
auth.cluster.secret.file $SECRET
CONF
for i in 1 2; do
  cat >"$WORK/server-$i.conf" <<CONF
server.bind.host 127.0.0.1
server.port $((COORDINATOR_PORT + 2 * i))
server.http.port $((COORDINATOR_PORT + 2 * i + 1))
server.coordinators 127.0.0.1:$COORDINATOR_PORT
server.heartbeat.interval 1s
local.dirs $WORK/data-$i
disk.min.free 0
buffer.capacity 256m
read.buffer.capacity 64m
heap.commit.pairs 10000000
heap.blocks.in.memory 100000
auth.enabled true
auth.cluster.secret.file $SECRET
CONF
done

stop_all() {
  echo "== Stopping"
  bin/stop-server.sh "$WORK/server-1.conf" || true
  bin/stop-server.sh "$WORK/server-2.conf" || true
  bin/stop-coordinator.sh "$WORK/coordinator.conf" || true
}
trap stop_all EXIT

echo "== Starting a coordinator and two shuffle servers"
bin/start-coordinator.sh "$WORK/coordinator.conf"
bin/start-server.sh "$WORK/server-1.conf"
bin/start-server.sh "$WORK/server-2.conf"
# Wait until both servers have heart-beaten to the coordinator.
for _ in $(seq 1 100); do
  n=$(http_get $((COORDINATOR_PORT + 1)) /status 2>/dev/null | grep -o '"condition":"active"' | wc -l || true)
  [ "${n:-0}" -ge 2 ] && break
  sleep 0.2
done

pushed() {
  local total=0 v
  for i in 1 2; do
    v=$(http_get $((COORDINATOR_PORT + 2 * i + 1)) /metrics \
      | awk '/^sluice_server_pushed_bytes_total /{printf "%d", $2}')
    total=$((total + ${v:-0}))
  done
  echo "$total"
}

SHADED="$(sluice_shaded_jar)"
APP_JAR="$(sluice_examples_jar)"

echo "== Running the example Spark job through Sluice"
"$JAVA" -Xmx1g "${SPARK_JAVA_OPENS[@]}" \
  -Dlog4j2.configurationFile="$HOME_DIR/conf/spark-log4j2.properties" \
  -cp "$SPARK_HOME/jars/*:$SHADED" org.apache.spark.deploy.SparkSubmit \
  --master "local[2]" \
  --conf spark.ui.enabled=false \
  --conf spark.driver.host=127.0.0.1 \
  --conf spark.driver.extraClassPath="$SHADED" \
  --conf spark.executor.extraClassPath="$SHADED" \
  --conf spark.shuffle.manager=io.sluice.client.spark.SluiceShuffleManager \
  --conf spark.sluice.coordinators="127.0.0.1:$COORDINATOR_PORT" \
  --conf spark.sluice.fallback.enabled=false \
  --conf spark.sluice.auth.enabled=true \
  --conf spark.sluice.auth.cluster.secret.file="$SECRET" \
  --jars "$SHADED" \
  --class io.sluice.examples.ShuffleExample "$APP_JAR" "${1:-2000000}" "${2:-100000}" \
  2> >(grep -v -E '^\s*$|WARN NativeCodeLoader|Using Spark.s default log4j' >&2)

echo "Bytes that went through Sluice: $(pushed)"
