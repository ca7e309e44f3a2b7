package io.sluice.common.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.AttributeKey;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool of {@code transport.connections.per.peer} connections per remote address, shared by every
 * task of a JVM. Connections are opened lazily on first use, replaced when they break, and close
 * themselves after {@code transport.idle.timeout} without traffic.
 */
public final class TransportClientFactory implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TransportClientFactory.class);
  private static final AttributeKey<TransportClient> CLIENT = AttributeKey.valueOf("sluiceClient");

  private final TransportContext context;
  private final TransportConf conf;
  private final EventLoopGroup workerGroup;
  private final Bootstrap bootstrap;
  private final ConcurrentHashMap<String, Slots> pools = new ConcurrentHashMap<>();

  TransportClientFactory(TransportContext context) {
    this.context = context;
    this.conf = context.conf();
    IoMode mode = NettyTransports.resolve(conf.ioMode());
    this.workerGroup = NettyTransports.eventLoopGroup(mode, conf.clientThreads(), "sluice-client");
    this.bootstrap = new Bootstrap()
        .group(workerGroup)
        .channel(NettyTransports.channelClass(mode))
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .option(ChannelOption.ALLOCATOR, context.allocator())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) conf.connectTimeout().toMillis());
    if (conf.sendBuffer() > 0) {
      bootstrap.option(ChannelOption.SO_SNDBUF, conf.sendBuffer());
    }
    if (conf.receiveBuffer() > 0) {
      bootstrap.option(ChannelOption.SO_RCVBUF, conf.receiveBuffer());
    }
  }

  /**
   * A pooled, handshaken connection to {@code host:port}. Blocks only when a new connection must be
   * opened (at most {@code transport.connect.timeout}).
   */
  public TransportClient getClient(String host, int port) throws IOException, InterruptedException {
    Slots slots = pools.computeIfAbsent(host + ":" + port, k -> new Slots(conf.connectionsPerPeer()));
    int i = ThreadLocalRandom.current().nextInt(slots.clients.length);
    TransportClient cached = slots.clients[i];
    if (cached != null && cached.isActive()) {
      return cached;
    }
    synchronized (slots.locks[i]) {
      cached = slots.clients[i];
      if (cached != null && cached.isActive()) {
        return cached;
      }
      TransportClient fresh = createUnpooledClient(host, port);
      slots.clients[i] = fresh;
      return fresh;
    }
  }

  /** A new connection outside the pool; the caller closes it. */
  public TransportClient createUnpooledClient(String host, int port)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + conf.connectTimeout().toNanos();
    Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        ch.attr(CLIENT).set(context.initClientPipeline(ch, host, port));
      }
    });
    ChannelFuture connect = b.connect(new InetSocketAddress(host, port));
    if (!connect.await(conf.connectTimeout().toMillis())) {
      connect.channel().close();
      throw new IOException("timed out connecting to " + host + ":" + port + " after "
          + conf.connectTimeout().toMillis() + " ms (transport.connect.timeout)");
    }
    if (!connect.isSuccess()) {
      throw new IOException("cannot connect to " + host + ":" + port + ": " + connect.cause(),
          connect.cause());
    }
    Channel channel = connect.channel();
    TransportClient client = channel.attr(CLIENT).get();
    try {
      long remainingMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      HandshakeResponse hello = client
          .request(new HandshakeRequest(TransportClient.nextRequestId(), ProtocolVersion.CURRENT,
              context.localId()), HandshakeResponse.class)
          .get(remainingMillis, TimeUnit.MILLISECONDS);
      client.serverId(hello.serverId());
      LOG.debug("Connected to {}:{} (server {})", host, port, hello.serverId());
      return client;
    } catch (ExecutionException e) {
      channel.close();
      Throwable cause = e.getCause();
      throw cause instanceof IOException
          ? (IOException) cause
          : new IOException("handshake with " + host + ":" + port + " failed", cause);
    } catch (TimeoutException e) {
      channel.close();
      throw new IOException("no handshake answer from " + host + ":" + port + " within "
          + conf.connectTimeout().toMillis() + " ms (transport.connect.timeout)");
    } catch (InterruptedException e) {
      channel.close();
      throw e;
    }
  }

  /** Number of open pooled connections, over all addresses. */
  public int activeConnections() {
    int n = 0;
    for (Slots s : pools.values()) {
      for (TransportClient c : s.clients) {
        if (c != null && c.isActive()) {
          n++;
        }
      }
    }
    return n;
  }

  @Override
  public void close() {
    for (Slots s : pools.values()) {
      for (TransportClient c : s.clients) {
        if (c != null) {
          c.close();
        }
      }
    }
    pools.clear();
    workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private static final class Slots {
    final TransportClient[] clients;
    final Object[] locks;

    Slots(int n) {
      clients = new TransportClient[n];
      locks = new Object[n];
      for (int i = 0; i < n; i++) {
        locks[i] = new Object();
      }
    }
  }
}
