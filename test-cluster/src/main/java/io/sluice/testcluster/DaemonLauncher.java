package io.sluice.testcluster;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** How a {@link ProcessCluster} starts a daemon: through the shipped scripts, or as a bare JVM. */
public interface DaemonLauncher {
  /** The two kinds of daemon, named as the {@code bin/} scripts name them. */
  enum Role {
    COORDINATOR("coordinator", "io.sluice.coordinator.CoordinatorMain"),
    SERVER("server", "io.sluice.server.ShuffleServerMain");

    private final String script;
    private final String mainClass;

    Role(String script, String mainClass) {
      this.script = script;
      this.mainClass = mainClass;
    }

    /** {@code coordinator} or {@code server}, as in {@code bin/start-server.sh}. */
    public String script() {
      return script;
    }

    public String mainClass() {
      return mainClass;
    }
  }

  /**
   * Starts a daemon on its configuration file. The cluster waits for it to serve.
   *
   * @param dir the cluster's directory, where logs and pid files go
   * @param prefix what the command is prefixed with to run on the daemon's host (empty on this
   *     machine's loopback; {@code ip netns exec ...} on a network test bed)
   */
  Daemon start(Role role, Path conf, Path dir, List<String> prefix)
      throws IOException, InterruptedException;

  /**
   * Whether the daemons run with Netty's paranoid leak detection, so that a {@code LEAK:} line in a
   * log fails the cluster's close; otherwise such a line is only reported.
   */
  default boolean detectsLeaks() {
    return false;
  }
}
