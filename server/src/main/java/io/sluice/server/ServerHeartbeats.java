package io.sluice.server;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.auth.Credentials;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.coordinator.CoordinatorAddress;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import java.io.Closeable;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports the server's state to every coordinator in {@code server.coordinators} every {@code
 * server.heartbeat.interval}. A coordinator that cannot be reached is skipped until the next beat;
 * coordinators keep no state that these heartbeats do not rebuild.
 */
final class ServerHeartbeats implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHeartbeats.class);

  private final ShuffleServer server;
  private final List<String> tags;

  /** The node named in heartbeats; null: the coordinators take the server's host. */
  private final String node;

  private final TransportClientFactory clients;
  private final CoordinatorClient coordinators;
  private final ScheduledExecutorService timer;

  /**
   * @param credentials how the heartbeat connections authenticate at coordinators
   */
  ServerHeartbeats(
      ShuffleServer server, SluiceConf conf, TransportConf transportConf, Credentials credentials) {
    this.server = server;
    this.tags = conf.get(ServerOptions.TAGS);
    this.node = conf.getOptional(ServerOptions.NODE).orElse(null);
    List<String> listed = conf.get(ServerOptions.COORDINATORS);
    if (listed.isEmpty()) {
      this.clients = null;
      this.coordinators = null;
      this.timer = null;
      LOG.info(
          "No coordinators configured ({}): running stand-alone", ServerOptions.COORDINATORS.key());
      return;
    }
    List<CoordinatorAddress> addresses =
        CoordinatorAddress.parseList(listed, ServerOptions.COORDINATORS.key());
    this.clients =
        new TransportContext(transportConf, "server-heartbeats", PooledByteBufAllocator.DEFAULT)
            .createClientFactory(credentials);
    this.coordinators = new CoordinatorClient(clients, addresses, transportConf.requestTimeout());
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-heartbeat");
              t.setDaemon(true);
              return t;
            });
    long interval = conf.get(ServerOptions.HEARTBEAT_INTERVAL).toMillis();
    timer.scheduleWithFixedDelay(this::beat, 0, interval, TimeUnit.MILLISECONDS);
  }

  private void beat() {
    try {
      coordinators.sendHeartbeat(ServerStatusReport.heartbeat(server, tags), node);
    } catch (RuntimeException e) {
      LOG.warn("Could not build or send a heartbeat: {}", e.toString());
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
      coordinators.close();
      clients.close();
    }
  }
}
