# Sourced by the bin/ scripts. Uncomment to override.
# export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
# export SLUICE_LOG_DIR=/var/log/sluice
# export SLUICE_PID_DIR=/var/run/sluice
# The server's heap is derived from heap.commit.pairs and heap.blocks.in.memory in server.conf
# (552 MiB with the defaults); this sets it outright.
# export SLUICE_SERVER_HEAP=1g
# export SLUICE_COORDINATOR_HEAP=1g
# export SLUICE_JAVA_OPTS="-XX:+UseG1GC"
