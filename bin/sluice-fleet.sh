#!/usr/bin/env bash
# Shared by bin/start-all.sh and bin/stop-all.sh: runs one of Sluice's scripts on every host of a
# hosts file over ssh, as Spark's sbin/workers.sh does. Not meant to be run by itself.
#
# Hosts files, one host name per line ('#' starts a comment): $SLUICE_CONF_DIR/coordinators and
# $SLUICE_CONF_DIR/servers. Every host has Sluice at the same path as this one ($SLUICE_HOME) and a
# configuration directory at the same path ($SLUICE_CONF_DIR, with the same cluster secret file),
# and lets this user in by ssh without a password (BatchMode: a host that asks for one fails).
#
# Environment (here or in conf/sluice-env.sh):
#   SLUICE_SSH_OPTS     extra ssh options, e.g. "-p 2222 -i ~/.ssh/sluice"
#   SLUICE_SSH_TIMEOUT  seconds to wait for a host's ssh connection (default 10)
. "$(dirname "${BASH_SOURCE[0]}")/sluice-daemon.sh"

# The host names of a hosts file, comments and blank lines left out.
sluice_hosts() {
  sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$' || true
}

# Runs bin/<script> on one host; every line it prints is prefixed with the host. Returns the
# script's exit code (255 when ssh itself failed).
sluice_on_host() {
  local host="$1" script="$2" remote
  remote="$(printf 'SLUICE_CONF_DIR=%q SLUICE_CREATE_SECRETS=no %q' "$SLUICE_CONF_DIR" \
    "$SLUICE_HOME/bin/$script")"
  # shellcheck disable=SC2086
  ssh -o BatchMode=yes -o ConnectTimeout="${SLUICE_SSH_TIMEOUT:-10}" ${SLUICE_SSH_OPTS:-} \
    "$host" "$remote" </dev/null 2>&1 | sed -u "s/^/$host: /"
  return "${PIPESTATUS[0]}"
}

# sluice_on_hosts <hosts-file> <script>: runs bin/<script> on every host of the file at once and
# waits for all. Returns 0 when every one succeeded; otherwise prints the hosts that did not, with
# their exit codes, and returns 1.
sluice_on_hosts() {
  local file="$1" script="$2" hosts=() pids=() failed=() i code
  if [ ! -f "$file" ]; then
    echo "sluice: no hosts file $file (one host name per line)" >&2
    return 1
  fi
  mapfile -t hosts < <(sluice_hosts "$file")
  if [ "${#hosts[@]}" -eq 0 ]; then
    echo "sluice: $file names no host" >&2
    return 1
  fi
  for i in "${!hosts[@]}"; do
    sluice_on_host "${hosts[$i]}" "$script" &
    pids[i]=$!
  done
  for i in "${!hosts[@]}"; do
    code=0
    wait "${pids[$i]}" || code=$?
    if [ "$code" -ne 0 ]; then
      failed+=("${hosts[$i]} (exit $code)")
    fi
  done
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "sluice: $script failed on ${#failed[@]} of ${#hosts[@]} hosts of $file:" \
      "${failed[*]}" >&2
    return 1
  fi
}
