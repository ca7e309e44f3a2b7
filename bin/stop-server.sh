#!/usr/bin/env bash
# Stops a shuffle server started with bin/start-server.sh: bin/stop-server.sh [conf/server.conf]
. "$(dirname "$0")/sluice-daemon.sh"
sluice_stop server "${1:-$SLUICE_CONF_DIR/server.conf}"
