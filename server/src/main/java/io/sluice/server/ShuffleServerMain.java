package io.sluice.server;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.daemon.ReadyFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** Entry point of {@code bin/start-server.sh}: {@code ShuffleServerMain <conf/server.conf>}. */
public final class ShuffleServerMain {
  private ShuffleServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: ShuffleServerMain <server.conf>");
      System.exit(2);
    }
    SluiceConf conf;
    try {
      conf = ConfigLoader.load(Path.of(args[0]), Map.of(), ConfigDocGenerator.discover());
    } catch (ConfigException e) {
      System.err.println("Invalid configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    ShuffleServer server;
    try {
      server = new ShuffleServer(conf);
    } catch (IOException | RuntimeException e) {
      // The reason last: bin/start-server.sh shows the output's last lines.
      e.printStackTrace();
      System.err.println("Shuffle server did not start: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.drain(conf.get(ServerOptions.DRAIN_TIMEOUT));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  } finally {
                    server.close();
                    stopped.countDown();
                  }
                },
                "sluice-shutdown"));
    try {
      ReadyFile.announce(server.port(), server.httpPort());
    } catch (IOException e) {
      System.err.println("sluice: could not tell the start script that the server is ready: " + e);
    }
    stopped.await();
  }
}
