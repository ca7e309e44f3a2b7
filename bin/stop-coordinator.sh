#!/usr/bin/env bash
# Stops a coordinator started with bin/start-coordinator.sh: bin/stop-coordinator.sh [conf/coordinator.conf]
. "$(dirname "$0")/sluice-daemon.sh"
sluice_stop coordinator "${1:-$SLUICE_CONF_DIR/coordinator.conf}"
