package io.sluice.server;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.TransportClient;
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
 * Reports the server's state to every coordinator in {@code server.coordinators} every
 * {@code server.heartbeat.interval}. A coordinator that cannot be reached is skipped until the next
 * beat; coordinators keep no state that these heartbeats do not rebuild.
 */
final class ServerHeartbeats implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHeartbeats.class);

  private final ShuffleServer server;
  private final List<String> coordinators;
  private final List<String> tags;
  private final TransportClientFactory clients;
  private final ScheduledExecutorService timer;

  ServerHeartbeats(ShuffleServer server, SluiceConf conf, TransportConf transportConf) {
    this.server = server;
    this.coordinators = conf.get(ServerOptions.COORDINATORS);
    this.tags = conf.get(ServerOptions.TAGS);
    for (String c : coordinators) {
      HostPort.parse(c, ServerOptions.COORDINATORS.key());
    }
    if (coordinators.isEmpty()) {
      this.clients = null;
      this.timer = null;
      LOG.info("No coordinators configured (server.coordinators): running stand-alone");
      return;
    }
    this.clients = new TransportContext(transportConf, "server-heartbeats",
        PooledByteBufAllocator.DEFAULT).createClientFactory();
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-heartbeat");
      t.setDaemon(true);
      return t;
    });
    long interval = conf.get(ServerOptions.HEARTBEAT_INTERVAL).toMillis();
    timer.scheduleWithFixedDelay(this::beat, 0, interval, TimeUnit.MILLISECONDS);
  }

  private void beat() {
    for (String c : coordinators) {
      HostPort hp = HostPort.parse(c, ServerOptions.COORDINATORS.key());
      try {
        TransportClient client = clients.getClient(hp.host(), hp.port());
        client.request(new ServerHeartbeatRequest(TransportClient.nextRequestId(),
                ServerStatusReport.heartbeat(server, tags)), StatusResponse.class)
            .whenComplete((r, e) -> {
              if (e != null) {
                LOG.warn("Heartbeat to coordinator {} failed: {}", c, e.toString());
              }
            });
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        LOG.warn("Cannot reach coordinator {}: {}", c, e.toString());
      }
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
      clients.close();
    }
  }
}
