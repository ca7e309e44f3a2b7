#!/usr/bin/env bash
# Stops a whole Sluice cluster from one host, over ssh: bin/stop-server.sh on every host of
# $SLUICE_CONF_DIR/servers (each drains and writes its blocks for its next start), then
# bin/stop-coordinator.sh on every host of $SLUICE_CONF_DIR/coordinators. Exits 1, naming the
# hosts, when any stop failed. Hosts files and ssh: bin/sluice-fleet.sh; docs/operations.md.
. "$(dirname "$0")/sluice-fleet.sh"
status=0
sluice_on_hosts "$SLUICE_CONF_DIR/servers" stop-server.sh || status=1
sluice_on_hosts "$SLUICE_CONF_DIR/coordinators" stop-coordinator.sh || status=1
exit "$status"
