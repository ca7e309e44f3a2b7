package io.sluice.common.transport;

import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.ProtocolOptions;
import java.time.Duration;
import java.util.List;

/**
 * Network transport settings shared by the server, the coordinator and the Spark client (where they
 * take the {@code spark.sluice.} prefix).
 */
public final class TransportOptions implements ConfigOptionSet {

  public static final ConfigOption<IoMode> IO_MODE =
      ConfigOption.enumValue("transport.io.mode", IoMode.class)
          .defaultValue("auto")
          .doc("Netty transport: `epoll` (Linux native), `nio`, or `auto` to use epoll when it loads.")
          .build();

  public static final ConfigOption<Integer> SERVER_THREADS =
      ConfigOption.integer("transport.server.threads")
          .defaultValue("0")
          .min(0)
          .max(1024)
          .doc("Event-loop threads that serve connections; 0 means one per core.")
          .build();

  public static final ConfigOption<Integer> CLIENT_THREADS =
      ConfigOption.integer("transport.client.threads")
          .defaultValue("0")
          .min(0)
          .max(1024)
          .doc("Event-loop threads of a client's connection pool; 0 means one per core, at most 8.")
          .build();

  public static final ConfigOption<Integer> CONNECTIONS_PER_PEER =
      ConfigOption.integer("transport.connections.per.peer")
          .defaultValue("2")
          .min(1)
          .max(64)
          .doc("Connections a client pool keeps to each remote address, shared by all tasks of a JVM.")
          .build();

  public static final ConfigOption<Duration> CONNECT_TIMEOUT =
      ConfigOption.duration("transport.connect.timeout")
          .defaultValue("10s")
          .min(1)
          .doc("How long a client waits for a connection and its protocol handshake.")
          .build();

  public static final ConfigOption<Duration> REQUEST_TIMEOUT =
      ConfigOption.duration("transport.request.timeout")
          .defaultValue("120s")
          .min(1)
          .doc("How long a client waits for the answer to one request before failing it.")
          .build();

  public static final ConfigOption<Duration> IDLE_TIMEOUT =
      ConfigOption.duration("transport.idle.timeout")
          .defaultValue("300s")
          .min(1000)
          .doc("A connection with no traffic and no outstanding request for this long is closed.")
          .build();

  public static final ConfigOption<Long> MAX_FRAME_SIZE = ProtocolOptions.MAX_FRAME_SIZE;

  public static final ConfigOption<Integer> BACKLOG =
      ConfigOption.integer("transport.backlog")
          .defaultValue("1024")
          .min(1)
          .doc("Listen backlog of server sockets.")
          .build();

  public static final ConfigOption<Long> SEND_BUFFER =
      ConfigOption.bytes("transport.socket.send.buffer")
          .defaultValue("0")
          .doc("SO_SNDBUF of every socket; 0 leaves the operating system's default (autotuning).")
          .build();

  public static final ConfigOption<Long> RECEIVE_BUFFER =
      ConfigOption.bytes("transport.socket.receive.buffer")
          .defaultValue("0")
          .doc("SO_RCVBUF of every socket; 0 leaves the operating system's default (autotuning).")
          .build();

  public static final ConfigOption<Boolean> TLS_ENABLED =
      ConfigOption.bool("transport.tls.enabled")
          .defaultValue("false")
          .doc("Encrypt every connection with TLS. File segments are then sent in chunks through the "
              + "TLS engine instead of with sendfile.")
          .build();

  public static final ConfigOption<String> TLS_CERT_CHAIN =
      ConfigOption.string("transport.tls.cert.chain")
          .noDefault()
          .doc("PEM file with this server's certificate chain (servers, when TLS is on).")
          .build();

  public static final ConfigOption<String> TLS_PRIVATE_KEY =
      ConfigOption.string("transport.tls.private.key")
          .noDefault()
          .doc("PEM file with this server's PKCS#8 private key (servers, when TLS is on).")
          .build();

  public static final ConfigOption<String> TLS_TRUST_CERTS =
      ConfigOption.string("transport.tls.trust.certs")
          .noDefault()
          .doc("PEM file of certificates a client trusts when TLS is on; unset trusts the JDK's "
              + "default certificate authorities.")
          .build();

  private static final List<ConfigOption<?>> ALL = List.of(
      IO_MODE, SERVER_THREADS, CLIENT_THREADS, CONNECTIONS_PER_PEER, CONNECT_TIMEOUT,
      REQUEST_TIMEOUT, IDLE_TIMEOUT, MAX_FRAME_SIZE, BACKLOG, SEND_BUFFER, RECEIVE_BUFFER,
      TLS_ENABLED, TLS_CERT_CHAIN, TLS_PRIVATE_KEY, TLS_TRUST_CERTS);

  @Override
  public String title() {
    return "Transport (server, coordinator and client)";
  }

  @Override
  public String description() {
    return "Connection settings every Sluice process reads from its own configuration file. The Spark "
        + "client reads the same keys with the `spark.sluice.` prefix.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return ALL;
  }

  @Override
  public void validate(SluiceConf conf) {
    if (conf.get(TLS_ENABLED)
        && conf.isSet(TLS_CERT_CHAIN) != conf.isSet(TLS_PRIVATE_KEY)) {
      throw new ConfigException("'" + TLS_CERT_CHAIN.key() + "' and '" + TLS_PRIVATE_KEY.key()
          + "' must be set together when '" + TLS_ENABLED.key() + "' is true.");
    }
  }
}
