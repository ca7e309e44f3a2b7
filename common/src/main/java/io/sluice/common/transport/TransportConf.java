package io.sluice.common.transport;

import io.sluice.common.config.SluiceConf;
import java.time.Duration;

/** Typed view of the {@link TransportOptions} in a configuration. */
public final class TransportConf {
  private final SluiceConf conf;

  public TransportConf(SluiceConf conf) {
    this.conf = conf;
  }

  public SluiceConf conf() {
    return conf;
  }

  public IoMode ioMode() {
    return conf.get(TransportOptions.IO_MODE);
  }

  public int serverThreads() {
    int n = conf.get(TransportOptions.SERVER_THREADS);
    return n > 0 ? n : Runtime.getRuntime().availableProcessors();
  }

  public int clientThreads() {
    int n = conf.get(TransportOptions.CLIENT_THREADS);
    return n > 0 ? n : Math.min(8, Runtime.getRuntime().availableProcessors());
  }

  public int connectionsPerPeer() {
    return conf.get(TransportOptions.CONNECTIONS_PER_PEER);
  }

  public Duration connectTimeout() {
    return conf.get(TransportOptions.CONNECT_TIMEOUT);
  }

  public Duration requestTimeout() {
    return conf.get(TransportOptions.REQUEST_TIMEOUT);
  }

  /** {@code transport.liveness.timeout}; zero when probing is off. */
  public Duration livenessTimeout() {
    return conf.get(TransportOptions.LIVENESS_TIMEOUT);
  }

  public Duration idleTimeout() {
    return conf.get(TransportOptions.IDLE_TIMEOUT);
  }

  public int maxFrameSize() {
    return (int) (long) conf.get(TransportOptions.MAX_FRAME_SIZE);
  }

  public long receiveMemory() {
    return conf.get(TransportOptions.RECEIVE_MEMORY);
  }

  public int maxConnections() {
    return conf.get(TransportOptions.MAX_CONNECTIONS);
  }

  public Duration frameTimeout() {
    return conf.get(TransportOptions.FRAME_TIMEOUT);
  }

  public int backlog() {
    return conf.get(TransportOptions.BACKLOG);
  }

  public int sendBuffer() {
    return (int) Math.min(Integer.MAX_VALUE, conf.get(TransportOptions.SEND_BUFFER));
  }

  public int receiveBuffer() {
    return (int) Math.min(Integer.MAX_VALUE, conf.get(TransportOptions.RECEIVE_BUFFER));
  }

  public boolean tlsEnabled() {
    return conf.get(TransportOptions.TLS_ENABLED);
  }
}
