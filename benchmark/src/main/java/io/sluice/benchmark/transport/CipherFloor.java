package io.sluice.benchmark.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The least CPU that TLS can add per byte here: a client and a server engine of the provider the
 * transport uses, connected in memory (no sockets, no Netty pipeline), sealing and opening full
 * records on one thread. What TLS adds on the push path beyond this is the transport's own cost.
 */
final class CipherFloor {
  private static final int RECORD = 16 * 1024;
  private static final long BYTES = 1L << 30;

  private final SSLEngine client;
  private final SSLEngine server;
  private final ByteBuffer plaintext = ByteBuffer.allocateDirect(RECORD);
  private final ByteBuffer sealed = ByteBuffer.allocateDirect(2 * RECORD);
  private final ByteBuffer opened = ByteBuffer.allocateDirect(2 * RECORD);

  CipherFloor(SelfSignedCertificate cert, String host, SslProvider provider) throws SSLException {
    SslContext serverContext =
        SslContextBuilder.forServer(cert.certificate(), cert.privateKey())
            .sslProvider(provider)
            .build();
    SslContext clientContext =
        SslContextBuilder.forClient()
            .sslProvider(provider)
            .trustManager(cert.certificate())
            .build();
    server = serverContext.newEngine(ByteBufAllocator.DEFAULT);
    client = clientContext.newEngine(ByteBufAllocator.DEFAULT, host, 443);
  }

  /** The cipher suite the handshake chose. */
  String cipherSuite() {
    return client.getSession().getCipherSuite();
  }

  /** Handshakes, then returns the CPU-seconds that sealing and opening one GiB took. */
  double cpuSecondsPerGib() throws SSLException {
    handshake();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long start = threads.getCurrentThreadCpuTime();
    for (long moved = 0; moved < BYTES; moved += RECORD) {
      plaintext.clear();
      sealed.clear();
      check(client.wrap(plaintext, sealed), RECORD);
      sealed.flip();
      opened.clear();
      check(server.unwrap(sealed, opened), RECORD);
    }
    return (threads.getCurrentThreadCpuTime() - start) / 1e9 * ((1L << 30) / (double) BYTES);
  }

  private static void check(SSLEngineResult result, int expected) throws SSLException {
    int moved = Math.max(result.bytesConsumed(), result.bytesProduced());
    if (result.getStatus() != SSLEngineResult.Status.OK || moved < expected) {
      throw new SSLException("engine moved " + moved + " of " + expected + " bytes: " + result);
    }
  }

  private void handshake() throws SSLException {
    ByteBuffer toServer = ByteBuffer.allocateDirect(64 * 1024);
    ByteBuffer toClient = ByteBuffer.allocateDirect(64 * 1024);
    ByteBuffer empty = ByteBuffer.allocateDirect(0);
    client.beginHandshake();
    server.beginHandshake();
    for (int step = 0; !done(client) || !done(server); step++) {
      if (step == 20) {
        throw new SSLException("the in-memory handshake did not finish");
      }
      client.wrap(empty, toServer);
      toServer.flip();
      server.unwrap(toServer, opened.clear());
      toServer.compact();
      runTasks(server);
      server.wrap(empty, toClient);
      toClient.flip();
      client.unwrap(toClient, opened.clear());
      toClient.compact();
      runTasks(client);
    }
  }

  private static boolean done(SSLEngine engine) {
    SSLEngineResult.HandshakeStatus status = engine.getHandshakeStatus();
    return status == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
        || status == SSLEngineResult.HandshakeStatus.FINISHED;
  }

  private static void runTasks(SSLEngine engine) {
    Runnable task;
    while ((task = engine.getDelegatedTask()) != null) {
      task.run();
    }
  }
}
