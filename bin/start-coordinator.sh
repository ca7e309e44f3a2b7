#!/usr/bin/env bash
# Starts a coordinator in the background: bin/start-coordinator.sh [conf/coordinator.conf]
. "$(dirname "$0")/sluice-daemon.sh"
CONF="${1:-$SLUICE_CONF_DIR/coordinator.conf}"
sluice_create_missing_secrets "$(sluice_classpath coordinator)" "$CONF" \
  auth.cluster.secret.file coordinator.admin.token.file
sluice_start coordinator coordinator io.sluice.coordinator.CoordinatorMain "$CONF" \
  "-Xms${SLUICE_COORDINATOR_HEAP:-1g}" "-Xmx${SLUICE_COORDINATOR_HEAP:-1g}" -XX:+UseG1GC
