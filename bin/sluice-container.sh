#!/usr/bin/env bash
# The container image's entry point (deploy/docker/Dockerfile): runs one daemon in the foreground
# as the container's main process, logging to standard output, so that SIGTERM reaches it.
#   sluice-container.sh coordinator [coordinator.conf]
#   sluice-container.sh server [server.conf]
# For a server, SLUICE_ADVERTISED_HOST, SLUICE_SERVER_ID and SLUICE_NODE, when set, become
# server.advertised.host, server.id and server.node in a copy of its configuration file: a pod
# learns its own name and node only when it runs (deploy/kubernetes/server.yaml), while the file
# comes from a ConfigMap that all pods share.
set -euo pipefail
BIN="$(cd "$(dirname "$0")" && pwd)"
export SLUICE_FOREGROUND=1
usage() {
  echo "usage: $0 coordinator|server [configuration file]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
case "$1" in
  coordinator)
    exec "$BIN/start-coordinator.sh" "${2:-/etc/sluice/conf/coordinator.conf}"
    ;;
  server)
    conf="${2:-/etc/sluice/conf/server.conf}"
    if [ -n "${SLUICE_ADVERTISED_HOST:-}${SLUICE_SERVER_ID:-}${SLUICE_NODE:-}" ]; then
      [ -r "$conf" ] || { echo "sluice: cannot read $conf" >&2; exit 1; }
      own="$(mktemp -t sluice-server.XXXXXX.conf)"
      cat "$conf" > "$own"
      if [ -n "${SLUICE_ADVERTISED_HOST:-}" ]; then
        printf '\nserver.advertised.host %s\n' "$SLUICE_ADVERTISED_HOST" >> "$own"
      fi
      if [ -n "${SLUICE_SERVER_ID:-}" ]; then
        printf 'server.id %s\n' "$SLUICE_SERVER_ID" >> "$own"
      fi
      if [ -n "${SLUICE_NODE:-}" ]; then
        printf 'server.node %s\n' "$SLUICE_NODE" >> "$own"
      fi
      conf="$own"
    fi
    exec "$BIN/start-server.sh" "$conf"
    ;;
  *)
    usage
    ;;
esac
