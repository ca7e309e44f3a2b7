package io.sluice.coordinator;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.daemon.ReadyFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator daemon: {@code CoordinatorMain <conf-file>}, as {@code bin/start-coordinator.sh}
 * runs it. Runs until the process is told to stop (SIGTERM), then closes the coordinator.
 */
public final class CoordinatorMain {
  static {
    // Log4j stops itself in a shutdown hook of its own, which races ours and can swallow the
    // "stopped" line. Unless the operator decided otherwise, leave the stopping to the JVM's exit.
    if (System.getProperty("log4j.shutdownHookEnabled") == null) {
      System.setProperty("log4j.shutdownHookEnabled", "false");
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorMain.class);

  private CoordinatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: CoordinatorMain <conf-file>   (e.g. conf/coordinator.conf)");
      System.exit(2);
    }
    Path confFile = Path.of(args[0]);
    SluiceConf conf;
    CoordinatorServer coordinator;
    try {
      conf = ConfigLoader.load(confFile, Map.of(), ConfigDocGenerator.discover());
      coordinator = CoordinatorServer.start(conf);
    } catch (ConfigException e) {
      LOG.error("Coordinator not started: invalid configuration: {}", e.getMessage());
      System.err.println("sluice: invalid configuration: " + e.getMessage());
      System.exit(1);
      return;
    } catch (RuntimeException e) {
      LOG.error("Coordinator not started", e);
      System.err.println("sluice: coordinator not started: " + e);
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  coordinator.close();
                  LOG.info("Coordinator {} stopped", coordinator.id());
                  stopped.countDown();
                },
                "sluice-coordinator-shutdown"));
    LOG.info(
        "Coordinator {} started: port {}, HTTP port {}, configuration {}",
        coordinator.id(),
        coordinator.port(),
        coordinator.httpPort(),
        confFile.toAbsolutePath());
    try {
      ReadyFile.announce(coordinator.port(), coordinator.httpPort());
    } catch (IOException e) {
      LOG.warn("Could not tell the start script that the coordinator is ready: {}", e.toString());
    }
    stopped.await();
  }
}
