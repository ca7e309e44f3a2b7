#!/usr/bin/env bash
# Whether a coordinator started with bin/start-coordinator.sh runs:
# bin/status-coordinator.sh [conf/coordinator.conf]
# Prints its pid and ports and exits 0 when it runs; exits 3 when it does not.
. "$(dirname "$0")/sluice-daemon.sh"
sluice_status coordinator "${1:-$SLUICE_CONF_DIR/coordinator.conf}"
