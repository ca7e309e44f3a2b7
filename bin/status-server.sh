#!/usr/bin/env bash
# Whether a shuffle server started with bin/start-server.sh runs: bin/status-server.sh [conf/server.conf]
# Prints its pid and ports and exits 0 when it runs; exits 3 when it does not.
. "$(dirname "$0")/sluice-daemon.sh"
sluice_status server "${1:-$SLUICE_CONF_DIR/server.conf}"
