package io.sluice.common.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A listening socket whose connections are served by a {@link RequestHandler}. */
public final class TransportServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TransportServer.class);

  private final EventLoopGroup bossGroup;
  private final EventLoopGroup workerGroup;
  private final Channel serverChannel;
  private final int port;

  TransportServer(TransportContext context, String host, int port, RequestHandler handler) {
    TransportConf conf = context.conf();
    IoMode mode = NettyTransports.resolve(conf.ioMode());
    this.bossGroup = NettyTransports.eventLoopGroup(mode, 1, "sluice-accept");
    this.workerGroup =
        NettyTransports.eventLoopGroup(mode, conf.serverThreads(), "sluice-server");
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(bossGroup, workerGroup)
        .channel(NettyTransports.serverChannelClass(mode))
        .option(ChannelOption.SO_BACKLOG, conf.backlog())
        .option(ChannelOption.SO_REUSEADDR, true)
        .option(ChannelOption.ALLOCATOR, context.allocator())
        .childOption(ChannelOption.ALLOCATOR, context.allocator())
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            context.initServerPipeline(ch, handler);
          }
        });
    if (conf.sendBuffer() > 0) {
      bootstrap.childOption(ChannelOption.SO_SNDBUF, conf.sendBuffer());
    }
    if (conf.receiveBuffer() > 0) {
      bootstrap.childOption(ChannelOption.SO_RCVBUF, conf.receiveBuffer());
    }
    try {
      this.serverChannel = bootstrap.bind(new InetSocketAddress(host, port)).syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      shutdownGroups();
      throw new IllegalStateException("cannot listen on " + host + ":" + port + ": " + e, e);
    }
    this.port = ((InetSocketAddress) serverChannel.localAddress()).getPort();
    LOG.info("Listening on {}:{} ({} transport, {} threads)", host, this.port, mode,
        conf.serverThreads());
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
