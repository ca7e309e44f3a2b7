package io.sluice.testcluster;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.fixtures.ProjectRoot;
import io.sluice.server.ServerJvmOptions;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Daemons as JVMs on the caller's class path (a test's, so that a change needs no packaging), with
 * Netty's leak detection at {@code paranoid} and the direct memory bound that {@code
 * bin/start-server.sh} would give the same configuration. A daemon logs to {@code <dir>/<name>.log}
 * and its standard output goes to {@code <dir>/<name>.out}.
 */
public final class ClassPathLauncher implements DaemonLauncher {
  /** Nothing added to the daemons' JVMs. */
  public static final ClassPathLauncher PLAIN = new ClassPathLauncher(List.of(), List.of());

  private static final long COORDINATOR_DIRECT_MEMORY = 256L << 20;

  private final List<String> options;
  private final List<Path> classPathFirst;

  /**
   * @param options added to every daemon's JVM (system properties such as {@code
   *     java.security.krb5.conf})
   * @param classPathFirst directories put before the class path (Hadoop's site files, as {@code
   *     bin/start-server.sh} puts {@code HADOOP_CONF_DIR} there)
   */
  public ClassPathLauncher(List<String> options, List<Path> classPathFirst) {
    this.options = List.copyOf(options);
    this.classPathFirst = List.copyOf(classPathFirst);
  }

  @Override
  public Daemon start(Role role, Path conf, Path dir, List<String> prefix) throws IOException {
    String name = conf.getFileName().toString().replaceFirst("\\.conf$", "");
    Path log = dir.resolve(name + ".log");
    List<String> command = new ArrayList<>(prefix);
    command.addAll(javaCommand(role, conf, log));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".out").toFile()))
            .start();
    return new Daemon(
        name,
        process.toHandle(),
        log,
        () -> {
          process.destroy();
          process.waitFor(60, TimeUnit.SECONDS);
        });
  }

  /** The daemons run with paranoid leak detection: a leak they report is a failure. */
  @Override
  public boolean detectsLeaks() {
    return true;
  }

  private List<String> javaCommand(Role role, Path conf, Path log) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> classPath = new ArrayList<>();
    classPathFirst.forEach(d -> classPath.add(d.toString()));
    classPath.add(System.getProperty("java.class.path"));
    List<String> command =
        new ArrayList<>(List.of(java, "-cp", String.join(File.pathSeparator, classPath)));
    command.addAll(options);
    command.addAll(
        List.of(
            "-Xmx256m",
            "-XX:MaxDirectMemorySize=" + directMemory(role, conf),
            "-XX:+ExitOnOutOfMemoryError",
            "-Dio.netty.leakDetection.level=paranoid",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
            "-Dlog4j2.configurationFile=" + ProjectRoot.get().resolve("conf/log4j2.xml"),
            "-Dsluice.log.file=" + log,
            role.mainClass(),
            conf.toString()));
    return command;
  }

  private static long directMemory(Role role, Path conf) {
    if (role == Role.COORDINATOR) {
      return COORDINATOR_DIRECT_MEMORY;
    }
    return ServerJvmOptions.maxDirectMemory(
        ConfigLoader.load(conf, Map.of(), ConfigDocGenerator.discover()));
  }
}
