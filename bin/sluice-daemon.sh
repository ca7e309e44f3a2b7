#!/usr/bin/env bash
# Shared by bin/start-*.sh, bin/stop-*.sh and bin/status-*.sh: pid, ready and log files, refusing to
# start twice, waiting until a daemon serves, telling our processes from others, and the
# classpath of a daemon module. Not meant to be run by itself.
#
# Environment (set here or in conf/sluice-env.sh):
#   JAVA_HOME          Java 17 or newer; `java` on the PATH otherwise
#   SLUICE_LOG_DIR     where daemons write their logs (default: $SLUICE_HOME/logs)
#   SLUICE_PID_DIR     where daemons keep their pid files (default: $SLUICE_HOME/run)
#   SLUICE_SERVER_HEAP, SLUICE_COORDINATOR_HEAP   heap sizes (the server's is derived from its
#                      configuration when unset, the coordinator's is 1g)
#   SLUICE_JAVA_OPTS   extra JVM options for every daemon
#   SLUICE_START_TIMEOUT seconds start waits for the daemon to serve its ports (default 120)
#   SLUICE_FOREGROUND  when set (to anything), start runs the daemon in the foreground in place of
#                      the script (for containers: it is their main process, logging to stdout)
#   SLUICE_STOP_TIMEOUT seconds stop waits before SIGKILL (default 100; a server drains, then writes
#                       its blocks to disk for its next start)

set -euo pipefail

SLUICE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SLUICE_CONF_DIR="${SLUICE_CONF_DIR:-$SLUICE_HOME/conf}"
# Exported: a configuration file may name files by them (${SLUICE_CONF_DIR}/cluster.secret).
export SLUICE_HOME SLUICE_CONF_DIR
if [ -f "$SLUICE_CONF_DIR/sluice-env.sh" ]; then
  # shellcheck disable=SC1091
  . "$SLUICE_CONF_DIR/sluice-env.sh"
fi
SLUICE_LOG_DIR="${SLUICE_LOG_DIR:-$SLUICE_HOME/logs}"
SLUICE_PID_DIR="${SLUICE_PID_DIR:-$SLUICE_HOME/run}"
if [ -n "${JAVA_HOME:-}" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA="java"; fi

# Classpath of a daemon module: lib/<module>/ in a distribution (dist/target/sluice-*-bin.tar.gz),
# or in a build tree the module jar and target/lib/* that `mvn package` leaves.
sluice_classpath() {
  local module="$1"
  if [ -d "$SLUICE_HOME/lib/$module" ]; then
    echo "$SLUICE_HOME/lib/$module/*"
    return
  fi
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

# The main class of a kind of daemon, which tells its processes from any other.
sluice_main_class() {
  case "$1" in
    server) echo io.sluice.server.ShuffleServerMain ;;
    coordinator) echo io.sluice.coordinator.CoordinatorMain ;;
    *) echo "sluice: unknown daemon kind $1" >&2; exit 2 ;;
  esac
}

# sluice_running <kind> <pid>: whether the process is alive and is a Sluice daemon of that kind (a
# pid file outlives its process, and the number can be reused by any other process).
sluice_running() {
  local kind="$1" pid="$2"
  kill -0 "$pid" 2>/dev/null || return 1
  # -ww: the full command line, however wide (the main class comes after a long class path).
  ps -ww -p "$pid" -o args= 2>/dev/null | grep -q -- "$(sluice_main_class "$kind")"
}

# sluice_create_missing_secrets <classpath> <conf-file> <key...>: with auth.enabled, creates the
# secret files those keys name that do not exist yet (the shipped conf/ turns authentication on
# and names files beside it), saying so; the other hosts of the cluster need copies of them. Only
# bin/start-coordinator.sh and bin/start-all.sh do: a server's secret must be the coordinator's,
# never one of its own, and bin/start-all.sh makes them once, on its own host, before it starts any
# (SLUICE_CREATE_SECRETS=no for the scripts it runs on the hosts).
sluice_create_missing_secrets() {
  local cp="$1" conf="$2"
  shift 2
  if [ -f "$conf" ] && [ "${SLUICE_CREATE_SECRETS:-yes}" != no ]; then
    "$JAVA" -cp "$cp" -Dlog4j2.level=warn io.sluice.common.auth.MissingSecrets "$conf" "$@"
  fi
}

# sluice_start <kind> <module> <main-class> <conf-file> <jvm-options...>
sluice_start() {
  local kind="$1" module="$2" main="$3" conf="$4"
  shift 4
  if [ ! -f "$conf" ]; then
    echo "sluice: configuration file $conf does not exist" >&2
    exit 1
  fi
  local name pid_file log_file ready_file
  name="$(sluice_instance "$conf")"
  pid_file="$SLUICE_PID_DIR/$kind-$name.pid"
  ready_file="$SLUICE_PID_DIR/$kind-$name.ready"
  log_file="$SLUICE_LOG_DIR/$kind-$name.log"
  mkdir -p "$SLUICE_LOG_DIR" "$SLUICE_PID_DIR"
  if [ -f "$pid_file" ] && sluice_running "$kind" "$(cat "$pid_file")"; then
    echo "sluice: $kind $name is already running as process $(cat "$pid_file"); stop it first" >&2
    exit 1
  fi
  rm -f "$pid_file" "$ready_file"
  local cp
  cp="$(sluice_classpath "$module")"
  if [ -n "${SLUICE_FOREGROUND:-}" ]; then
    # The container's main process: SIGTERM reaches the JVM, which drains and stops.
    # shellcheck disable=SC2086
    exec "$JAVA" "$@" ${SLUICE_JAVA_OPTS:-} \
      -Dlog4j2.configurationFile="$SLUICE_CONF_DIR/log4j2-console.xml" \
      -cp "$cp" "$main" "$conf"
  fi
  # shellcheck disable=SC2086
  nohup "$JAVA" "$@" ${SLUICE_JAVA_OPTS:-} \
    -Dlog4j2.configurationFile="$SLUICE_CONF_DIR/log4j2.xml" \
    -Dsluice.log.file="$log_file" \
    -Dsluice.ready.file="$ready_file" \
    -cp "$cp" "$main" "$conf" >>"$log_file.out" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$pid_file"
  # The daemon writes the ready file once its ports listen; a bad configuration ends the process.
  local timeout="${SLUICE_START_TIMEOUT:-120}" ticks=0
  while [ ! -s "$ready_file" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pid_file"
      echo "sluice: $kind $name failed to start; see $log_file.out:" >&2
      tail -n 20 "$log_file.out" >&2
      exit 1
    fi
    if [ "$ticks" -ge $((timeout * 10)) ]; then
      echo "sluice: $kind $name (process $pid) does not serve its ports after $timeout s" \
        "(SLUICE_START_TIMEOUT); it may still be starting: see $log_file" >&2
      exit 1
    fi
    sleep 0.1
    ticks=$((ticks + 1))
  done
  echo "sluice: started $kind $name (pid $pid, $(cat "$ready_file"), log $log_file)"
}

# sluice_status <kind> <conf-file>: exit 0 and the pid and ports when running, 3 otherwise.
sluice_status() {
  local kind="$1" conf="$2"
  local name pid_file pid
  name="$(sluice_instance "$conf")"
  pid_file="$SLUICE_PID_DIR/$kind-$name.pid"
  if [ -f "$pid_file" ]; then
    pid="$(cat "$pid_file")"
    if sluice_running "$kind" "$pid"; then
      local ports="starting"
      if [ -s "$SLUICE_PID_DIR/$kind-$name.ready" ]; then
        ports="$(cat "$SLUICE_PID_DIR/$kind-$name.ready")"
      fi
      echo "sluice: $kind $name is running (pid $pid, $ports)"
      return 0
    fi
    echo "sluice: $kind $name is not running (stale pid file $pid_file names process $pid)"
    return 3
  fi
  echo "sluice: $kind $name is not running"
  return 3
}

# sluice_stop <kind> <conf-file>
sluice_stop() {
  local kind="$1" conf="$2"
  local name pid_file pid
  name="$(sluice_instance "$conf")"
  pid_file="$SLUICE_PID_DIR/$kind-$name.pid"
  if [ ! -f "$pid_file" ] || ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "sluice: no $kind $name is running"
    rm -f "$pid_file" "$SLUICE_PID_DIR/$kind-$name.ready"
    return 0
  fi
  if ! sluice_running "$kind" "$(cat "$pid_file")"; then
    echo "sluice: process $(cat "$pid_file") of $pid_file is not a Sluice $kind (the pid file is" \
      "stale); it is left alone and the pid file removed"
    rm -f "$pid_file" "$SLUICE_PID_DIR/$kind-$name.ready"
    return 0
  fi
  pid="$(cat "$pid_file")"
  kill "$pid"
  # A server drains first (server.drain.timeout, 30 s by default), then writes what it holds in
  # memory to disk for its next start (at most 60 s): wait a little longer than both.
  local timeout="${SLUICE_STOP_TIMEOUT:-100}"
  for _ in $(seq 1 $((timeout * 5))); do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pid_file" "$SLUICE_PID_DIR/$kind-$name.ready"
      echo "sluice: stopped $kind $name"
      return 0
    fi
    sleep 0.2
  done
  echo "sluice: $kind $name did not stop within $timeout s (SLUICE_STOP_TIMEOUT); killing it" >&2
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pid_file" "$SLUICE_PID_DIR/$kind-$name.ready"
}
