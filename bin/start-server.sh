#!/usr/bin/env bash
# Starts a shuffle server in the background: bin/start-server.sh [conf/server.conf]
# The JVM's direct memory is derived from buffer.capacity + read.buffer.capacity in that file, its
# heap from heap.commit.pairs and heap.blocks.in.memory (SLUICE_SERVER_HEAP, when set, instead).
. "$(dirname "$0")/sluice-daemon.sh"
CONF="${1:-$SLUICE_CONF_DIR/server.conf}"
CP="$(sluice_classpath server)"
# With an HDFS tier (hdfs.dir), Hadoop's client reads core-site.xml and hdfs-site.xml from here.
if [ -n "${HADOOP_CONF_DIR:-}" ]; then CP="$HADOOP_CONF_DIR:$CP"; fi
# The server's own config code computes the JVM sizes, so the script never parses sizes itself.
OPTS="$("$JAVA" -cp "$CP" io.sluice.server.ServerJvmOptions "$CONF" "${SLUICE_SERVER_HEAP:-}")"
read -r -a JVM_OPTS <<<"$OPTS"
sluice_start server server io.sluice.server.ShuffleServerMain "$CONF" "${JVM_OPTS[@]}"
