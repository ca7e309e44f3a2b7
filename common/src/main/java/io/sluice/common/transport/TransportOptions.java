package io.sluice.common.transport;

import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
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
          .doc(
              "Netty transport: `epoll` (Linux native), `nio`, or `auto` to use epoll when it loads.")
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
          .doc(
              "Connections a client pool keeps to each remote address, shared by all tasks of a JVM.")
          .build();

  public static final ConfigOption<Duration> CONNECT_TIMEOUT =
      ConfigOption.duration("transport.connect.timeout")
          .defaultValue("10s")
          .min(1)
          .doc(
              "How long a client waits for a connection and its protocol handshake, the lookup of"
                  + " the peer's host name included (made on threads of its own, never an event"
                  + " loop).")
          .build();

  public static final ConfigOption<Duration> REQUEST_TIMEOUT =
      ConfigOption.duration("transport.request.timeout")
          .defaultValue("120s")
          .min(1)
          .doc(
              "How long a client waits for the answer to one request before failing it. Each "
                  + "connection looks for overdue requests every eighth of this (at least every 10 ms, "
                  + "at most every second), so a request fails up to that much later.")
          .build();

  public static final ConfigOption<Duration> LIVENESS_TIMEOUT =
      ConfigOption.duration("transport.liveness.timeout")
          .defaultValue("8s")
          .min(0)
          .doc(
              "How soon a client gives up a peer that stopped answering (a frozen process, a "
                  + "link that drops packets). A peer silent for half of this while requests to it "
                  + "are outstanding is probed with a new connection and handshake, which a live "
                  + "process answers however busy it is; if the probe is not answered within the "
                  + "other half, every request outstanding to the peer fails, its connections close "
                  + "and new ones fail at once until a probe, repeated meanwhile, is answered. Writers "
                  + "then move to another server and readers to a replica. With two copies or more, "
                  + "pushes, forwards to a replica and commits, which another server can take, do "
                  + "not wait for that: they "
                  + "fail once the probe has gone unanswered for a quarter of this, and writers move "
                  + "on. A reader that has a replica moves to it at the "
                  + "first half already, also from a peer that answers the probe but not the reads. "
                  + "0 turns probing off, leaving `transport.request.timeout`.")
          .build();

  public static final ConfigOption<Duration> IDLE_TIMEOUT =
      ConfigOption.duration("transport.idle.timeout")
          .defaultValue("300s")
          .min(1000)
          .doc(
              "A connection with no traffic and no outstanding request for this long is closed "
                  + "(connections are checked every quarter of this time).")
          .build();

  public static final ConfigOption<Long> MAX_FRAME_SIZE = ProtocolOptions.MAX_FRAME_SIZE;

  public static final ConfigOption<Long> RECEIVE_MEMORY =
      ConfigOption.bytes("transport.receive.memory")
          .defaultValue("128m")
          .min(1024)
          .doc(
              "Servers and coordinators: the most memory that frames being received may reserve, "
                  + "all connections together. A connection reserves a frame's length before it reads "
                  + "the frame's body and stops reading while its frame does not fit; at least `"
                  + ProtocolOptions.MAX_FRAME_SIZE.key()
                  + "`. A frame is granted only while room for "
                  + "as much again stays free, up to what this exceeds `"
                  + ProtocolOptions.MAX_FRAME_SIZE.key()
                  + "` by: that margin is what keeps "
                  + "connections stalled in large frames from holding out smaller ones.")
          .build();

  public static final ConfigOption<Integer> MAX_CONNECTIONS =
      ConfigOption.integer("transport.max.connections")
          .defaultValue("1024")
          .min(1)
          .max(1_000_000)
          .doc(
              "Servers and coordinators: connections served at once; further ones are closed as "
                  + "they are accepted. Each connection may hold up to "
                  + (TransportServer.CONNECTION_OVERHEAD_BYTES >> 10)
                  + " KiB beyond its frame's "
                  + "reservation, so this bounds memory too.")
          .build();

  public static final ConfigOption<Duration> FRAME_TIMEOUT =
      ConfigOption.duration("transport.frame.timeout")
          .defaultValue("60s")
          .min(100)
          .doc(
              "Servers and coordinators: a frame must arrive whole within this time of its "
                  + "reservation, or its connection is closed and the reservation given back.")
          .build();

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
          .doc(
              "Encrypt every connection with TLS. File segments are then sent in chunks through the "
                  + "TLS engine instead of with sendfile.")
          .build();

  public static final ConfigOption<String> TLS_CERT_CHAIN =
      ConfigOption.string("transport.tls.cert.chain")
          .noDefault()
          .doc(
              "PEM file with this process's certificate chain: required on servers and "
                  + "coordinators when TLS is on, and presented by clients when set (mutual TLS).")
          .build();

  public static final ConfigOption<String> TLS_PRIVATE_KEY =
      ConfigOption.string("transport.tls.private.key")
          .noDefault()
          .doc("PEM file with the PKCS#8 private key of `transport.tls.cert.chain`.")
          .build();

  public static final ConfigOption<String> TLS_TRUST_CERTS =
      ConfigOption.string("transport.tls.trust.certs")
          .noDefault()
          .doc(
              "PEM file of the certificates (a private CA's, typically) that a client trusts for "
                  + "servers' certificates and, with `transport.tls.client.auth`, a server trusts for "
                  + "clients'. Required for clients when TLS is on: the JDK's public authorities are "
                  + "never trusted by default.")
          .build();

  public static final ConfigOption<Boolean> TLS_VERIFY_HOSTNAME =
      ConfigOption.bool("transport.tls.verify.hostname")
          .defaultValue("true")
          .doc(
              "Clients check that the server's certificate names the host they connect to (a DNS "
                  + "name, or an IP address in the certificate's subject alternative names).")
          .build();

  public static final ConfigOption<Boolean> TLS_CLIENT_AUTH =
      ConfigOption.bool("transport.tls.client.auth")
          .defaultValue("false")
          .doc(
              "Mutual TLS: servers refuse clients that present no certificate signed by "
                  + "`transport.tls.trust.certs`; clients present `transport.tls.cert.chain`.")
          .build();

  private static final List<ConfigOption<?>> ALL =
      List.of(
          IO_MODE,
          SERVER_THREADS,
          CLIENT_THREADS,
          CONNECTIONS_PER_PEER,
          CONNECT_TIMEOUT,
          REQUEST_TIMEOUT,
          LIVENESS_TIMEOUT,
          IDLE_TIMEOUT,
          MAX_FRAME_SIZE,
          RECEIVE_MEMORY,
          MAX_CONNECTIONS,
          FRAME_TIMEOUT,
          BACKLOG,
          SEND_BUFFER,
          RECEIVE_BUFFER,
          TLS_ENABLED,
          TLS_CERT_CHAIN,
          TLS_PRIVATE_KEY,
          TLS_TRUST_CERTS,
          TLS_VERIFY_HOSTNAME,
          TLS_CLIENT_AUTH);

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
    if (conf.get(RECEIVE_MEMORY) < conf.get(MAX_FRAME_SIZE)) {
      throw new ConfigException(
          "'"
              + RECEIVE_MEMORY.key()
              + "' ("
              + conf.get(RECEIVE_MEMORY)
              + " bytes) must be at least '"
              + MAX_FRAME_SIZE.key()
              + "' ("
              + conf.get(MAX_FRAME_SIZE)
              + " bytes): a frame is received only once its whole length is reserved.");
    }
    if (conf.get(TLS_ENABLED) && conf.isSet(TLS_CERT_CHAIN) != conf.isSet(TLS_PRIVATE_KEY)) {
      throw new ConfigException(
          "'"
              + TLS_CERT_CHAIN.key()
              + "' and '"
              + TLS_PRIVATE_KEY.key()
              + "' must be set together when '"
              + TLS_ENABLED.key()
              + "' is true.");
    }
  }
}
