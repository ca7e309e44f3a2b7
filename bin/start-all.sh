#!/usr/bin/env bash
# Starts a whole Sluice cluster from one host, over ssh: bin/start-coordinator.sh on every host of
# $SLUICE_CONF_DIR/coordinators, then bin/start-server.sh on every host of $SLUICE_CONF_DIR/servers
# (each list at once). Each start returns once its daemon serves, so this returns once all do;
# it exits 1, naming the hosts, when any start failed (the daemons that did start keep running).
# Hosts files and ssh: bin/sluice-fleet.sh; docs/operations.md.
. "$(dirname "$0")/sluice-fleet.sh"
# Secrets the configuration names and that do not exist yet are made here, once, never on the
# hosts: copy them to the other hosts' $SLUICE_CONF_DIR (a host without them fails to start,
# naming the file).
sluice_create_missing_secrets "$(sluice_classpath coordinator)" \
  "$SLUICE_CONF_DIR/coordinator.conf" auth.cluster.secret.file coordinator.admin.token.file
status=0
sluice_on_hosts "$SLUICE_CONF_DIR/coordinators" start-coordinator.sh || status=1
sluice_on_hosts "$SLUICE_CONF_DIR/servers" start-server.sh || status=1
exit "$status"
