package io.sluice.testcluster;

import io.sluice.fixtures.Daemons;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Daemons started and stopped with the {@code bin/} scripts of a Sluice home (a checkout or an
 * unpacked distribution), as an operator runs them: their JVMs, heaps and direct memory are the
 * scripts' own. Logs go to {@code <dir>/logs}, pid files to {@code <dir>/run}.
 */
public final class ScriptLauncher implements DaemonLauncher {
  private final Path home;
  private final String serverHeap;
  private final String javaOptions;

  /**
   * @param serverHeap {@code SLUICE_SERVER_HEAP}, or null for the heap the script derives
   * @param javaOptions {@code SLUICE_JAVA_OPTS}: added to every daemon's JVM (a flight recording, a
   *     profiler); null to leave the variable as this process's environment has it
   */
  public ScriptLauncher(Path home, String serverHeap, String javaOptions) {
    this.home = home;
    this.serverHeap = serverHeap;
    this.javaOptions = javaOptions;
  }

  @Override
  public Daemon start(Role role, Path conf, Path dir, List<String> prefix)
      throws IOException, InterruptedException {
    Map<String, String> env = environment(dir);
    Daemons daemons = Daemons.in(home);
    // The scripts name a daemon's files after its configuration file, less the extension.
    String instance =
        role.script() + "-" + conf.getFileName().toString().replaceFirst("\\.[^.]*$", "");
    Path pidFile = dir.resolve("run").resolve(instance + ".pid");
    try {
      System.out.println(daemons.script("start-" + role.script() + ".sh", conf, env, prefix));
    } catch (IOException e) {
      // A daemon that started but did not serve in time is left running by the script.
      running(pidFile).ifPresent(ProcessHandle::destroyForcibly);
      throw e;
    }
    ProcessHandle process =
        running(pidFile).orElseThrow(() -> new IOException(instance + " exited after its start"));
    return new Daemon(
        instance,
        process,
        dir.resolve("logs").resolve(instance + ".log"),
        () ->
            System.out.println(daemons.script("stop-" + role.script() + ".sh", conf, env, prefix)));
  }

  private Map<String, String> environment(Path dir) {
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_LOG_DIR", dir.resolve("logs").toString());
    env.put("SLUICE_PID_DIR", dir.resolve("run").toString());
    env.put("SLUICE_COORDINATOR_HEAP", "256m");
    if (serverHeap != null) {
      env.put("SLUICE_SERVER_HEAP", serverHeap);
    }
    if (javaOptions != null) {
      env.put("SLUICE_JAVA_OPTS", javaOptions);
    }
    return env;
  }

  /** The process whose id the start script wrote, while it runs. */
  private static Optional<ProcessHandle> running(Path pidFile) throws IOException {
    if (!Files.exists(pidFile)) {
      return Optional.empty();
    }
    long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).trim());
    return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
  }
}
