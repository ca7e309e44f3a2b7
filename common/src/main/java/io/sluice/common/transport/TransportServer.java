package io.sluice.common.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.sluice.common.auth.ServerAuth;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening socket whose connections are served by a {@link RequestHandler}, within a bounded
 * number of connections ({@link TransportOptions#MAX_CONNECTIONS}) and a bounded receive memory
 * ({@link ReceiveBudget}).
 */
public final class TransportServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TransportServer.class);

  /** Largest buffer one socket read fills; what a connection holds unreserved is a few of these. */
  public static final int MAX_READ_BYTES = 64 * 1024;

  /**
   * What one connection may hold beyond its frame's reservation: a read's buffer with bytes of the
   * next frame, the unmerged slack of {@code FrameDecoder}, and answers queued up to the channel's
   * write high-water mark (reading stops above it), TLS records included.
   */
  public static final long CONNECTION_OVERHEAD_BYTES = 3 * MAX_READ_BYTES;

  private final LogRateLimiter refusals = new LogRateLimiter(10_000);
  private final AtomicInteger connections = new AtomicInteger();
  private final ReceiveBudget receiveBudget;
  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final Channel serverChannel;
  private final int port;

  TransportServer(
      TransportContext context, String host, int port, RequestHandler handler, ServerAuth auth) {
    TransportConf conf = context.conf();
    this.receiveBudget = new ReceiveBudget(conf.receiveMemory(), conf.maxFrameSize());
    int maxConnections = conf.maxConnections();
    IoMode mode = NettyTransports.resolve(conf.ioMode());
    this.bossGroup = NettyTransports.eventLoopGroup(mode, 1, "sluice-accept");
    this.workerGroup = NettyTransports.eventLoopGroup(mode, conf.serverThreads(), "sluice-server");
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channel(NettyTransports.serverChannelClass(mode))
            .option(ChannelOption.SO_BACKLOG, conf.backlog())
            .option(ChannelOption.SO_REUSEADDR, true)
            .option(ChannelOption.ALLOCATOR, context.allocator())
            .childOption(ChannelOption.ALLOCATOR, context.allocator())
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(
                ChannelOption.RCVBUF_ALLOCATOR,
                new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    int open = connections.incrementAndGet();
                    ch.closeFuture().addListener(f -> connections.decrementAndGet());
                    if (open > maxConnections) {
                      refuse(ch, maxConnections);
                      return;
                    }
                    context.initServerPipeline(ch, handler, receiveBudget, auth);
                  }
                });
    if (conf.sendBuffer() > 0) {
      bootstrap.childOption(ChannelOption.SO_SNDBUF, conf.sendBuffer());
    }
    if (conf.receiveBuffer() > 0) {
      bootstrap.childOption(ChannelOption.SO_RCVBUF, conf.receiveBuffer());
    }
    try {
      this.serverChannel =
          bootstrap.bind(new InetSocketAddress(host, port)).syncUninterruptibly().channel();
    } catch (RuntimeException e) {
      shutdownGroups();
      throw new IllegalStateException("cannot listen on " + host + ":" + port + ": " + e, e);
    }
    this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    LOG.info(
        "Listening on {}:{} ({} transport, {} threads)",
        host,
        this.port,
        mode,
        conf.serverThreads());
  }

  private void refuse(SocketChannel ch, int maxConnections) {
    if (refusals.tryAcquire()) {
      LOG.warn(
          "Refusing a connection from {}: {} connections are open, the most this process "
              + "serves ({}); further refusals are not logged for 10 s",
          ch.remoteAddress(),
          maxConnections,
          TransportOptions.MAX_CONNECTIONS.key());
    }
    ch.close();
  }

  /** Connections open now, refused ones until they are closed included. */
  public int connectionCount() {
    return connections.get();
  }

  public ReceiveBudget receiveBudget() {
    return receiveBudget;
  }

  /** The port actually bound (useful when 0 was asked for). */
  public int port() {
    return port;
  }

  @Override
  public void close() {
    serverChannel.close().syncUninterruptibly();
    shutdownGroups();
  }

  private void shutdownGroups() {
    bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
