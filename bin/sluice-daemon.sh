#!/usr/bin/env bash
# Shared by bin/start-*.sh and bin/stop-*.sh: pid and log files, refusing to start twice, and the
# classpath of a daemon module. Not meant to be run by itself.
#
# Environment (set here or in conf/sluice-env.sh):
#   JAVA_HOME          Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_LOG_DIR     where daemons write their logs (default: $SLUICE_HOME/logs)
#   SLUICE_PID_DIR     where daemons keep their pid files (default: $SLUICE_HOME/run)
#   SLUICE_SERVER_HEAP, SLUICE_COORDINATOR_HEAP   heap sizes (defaults 512m and 1g)
#   SLUICE_JAVA_OPTS   extra JVM options for every daemon
#   SLUICE_STOP_TIMEOUT seconds stop waits before SIGKILL (default 100; a server drains, then writes
#                       its blocks to disk for its next start)

set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SLUICE_CONF_DIR="${SLUICE_CONF_DIR:-$SLUICE_HOME/conf}"
if [ -f "$SLUICE_CONF_DIR/sluice-env.sh" ]; then
  # shellcheck disable=SC1091
  . "$SLUICE_CONF_DIR/sluice-env.sh"
fi
SLUICE_LOG_DIR="${SLUICE_LOG_DIR:-$SLUICE_HOME/logs}"
SLUICE_PID_DIR="${SLUICE_PID_DIR:-$SLUICE_HOME/run}"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

# Classpath of a daemon module built by `mvn package` (module jar + target/lib/*).
sluice_classpath() {
  local module="$1"
  local jar
  jar="$(ls "$SLUICE_HOME/$module"/target/sluice-"$module"-*.jar 2>/dev/null | grep -v -- '-tests.jar' | head -n 1 || true)"
  if [ -z "$jar" ] || [ ! -d "$SLUICE_HOME/$module/target/lib" ]; then
    echo "sluice: $module is not built; run 'mvn -B -DskipTests package' in $SLUICE_HOME first" >&2
    exit 1
  fi
  echo "$jar:$SLUICE_HOME/$module/target/lib/*"
}

# The instance name of a daemon: its config file's name without extension.
sluice_instance() {
  basename "$1" | sed 's/\.[^.]*$//'
}

# sluice_start <kind> <module> <main-class> <conf-file> <jvm-options...>
sluice_start() {
  local kind="$1" module="$2" main="$3" conf="$4"
  shift 4
  if [ ! -f "$conf" ]; then
    echo "sluice: configuration file $conf does not exist" >&2
    exit 1
  fi
  local name pid_file log_file
  name="$(sluice_instance "$conf")"
  pid_file="$SLUICE_PID_DIR/$kind-$name.pid"
  log_file="$SLUICE_LOG_DIR/$kind-$name.log"
  mkdir -p "$SLUICE_LOG_DIR" "$SLUICE_PID_DIR"
  if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "sluice: $kind $name is already running as process $(cat "$pid_file"); stop it first" >&2
    exit 1
  fi
  local cp
  cp="$(sluice_classpath "$module")"
  # shellcheck disable=SC2086
  nohup "$JAVA" "$@" ${SLUICE_JAVA_OPTS:-} \
    -Dlog4j2.configurationFile="$SLUICE_CONF_DIR/log4j2.xml" \
    -Dsluice.log.file="$log_file" \
    -cp "$cp" "$main" "$conf" >>"$log_file.out" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$pid_file"
  sleep 1
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$pid_file"
    echo "sluice: $kind $name failed to start; see $log_file.out:" >&2
    tail -n 20 "$log_file.out" >&2
    exit 1
  fi
  echo "sluice: started $kind $name (pid $pid, log $log_file)"
}

# sluice_stop <kind> <conf-file>
sluice_stop() {
  local kind="$1" conf="$2"
  local name pid_file pid
  name="$(sluice_instance "$conf")"
  pid_file="$SLUICE_PID_DIR/$kind-$name.pid"
  if [ ! -f "$pid_file" ] || ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "sluice: no $kind $name is running"
    rm -f "$pid_file"
    return 0
  fi
  pid="$(cat "$pid_file")"
  kill "$pid"
  # A server drains first (server.drain.timeout, 30 s by default), then writes what it holds in
  # memory to disk for its next start (at most 60 s): wait a little longer than both.
  local timeout="${SLUICE_STOP_TIMEOUT:-100}"
  for _ in $(seq 1 $((timeout * 5))); do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pid_file"
      echo "sluice: stopped $kind $name"
      return 0
    fi
    sleep 0.2
  done
  echo "sluice: $kind $name did not stop within $timeout s (SLUICE_STOP_TIMEOUT); killing it" >&2
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}
