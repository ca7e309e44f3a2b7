package io.sluice.common.transport;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Chooses epoll or NIO, and builds event loops and allocators for it. */
public final class NettyTransports {
  private NettyTransports() {}

  /** Resolves AUTO; fails with the setting to change when epoll was asked for but cannot load. */
  public static IoMode resolve(IoMode mode) {
    if (mode == IoMode.AUTO) {
      return Epoll.isAvailable() ? IoMode.EPOLL : IoMode.NIO;
    }
    if (mode == IoMode.EPOLL && !Epoll.isAvailable()) {
      throw new IllegalStateException(
          TransportOptions.IO_MODE.key()
              + " is epoll but native epoll is unavailable ("
              + Epoll.unavailabilityCause()
              + "); set "
              + TransportOptions.IO_MODE.key()
              + " to nio or auto");
    }
    return mode;
  }

  public static EventLoopGroup eventLoopGroup(IoMode mode, int threads, String threadPrefix) {
    DefaultThreadFactory factory = new DefaultThreadFactory(threadPrefix, true);
    return resolve(mode) == IoMode.EPOLL
        ? new EpollEventLoopGroup(threads, factory)
        : new NioEventLoopGroup(threads, factory);
  }

  public static Class<? extends ServerChannel> serverChannelClass(IoMode mode) {
    return resolve(mode) == IoMode.EPOLL
        ? EpollServerSocketChannel.class
        : NioServerSocketChannel.class;
  }

  public static Class<? extends SocketChannel> channelClass(IoMode mode) {
    return resolve(mode) == IoMode.EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /**
   * A pooled allocator preferring direct memory, without thread-local caches on non-event-loop
   * threads: task threads come and go, and caches pinned to them would hold memory nobody frees.
   */
  public static PooledByteBufAllocator pooledAllocator(int arenas) {
    return new PooledByteBufAllocator(
        true,
        arenas,
        arenas,
        PooledByteBufAllocator.defaultPageSize(),
        PooledByteBufAllocator.defaultMaxOrder(),
        PooledByteBufAllocator.defaultSmallCacheSize(),
        PooledByteBufAllocator.defaultNormalCacheSize(),
        false);
  }
}
