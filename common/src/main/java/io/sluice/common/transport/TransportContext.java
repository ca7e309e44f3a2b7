package io.sluice.common.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.protocol.FrameDecoder;
import io.sluice.common.protocol.MessageDecoder;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.ProtocolVersion;

/**
 * Builds servers, client factories and their pipelines from one configuration, so both sides of a
 * connection are always assembled the same way: {@code [tls] [chunked writer] encoder | frame
 * decoder -> message decoder -> idle -> handler}.
 */
public final class TransportContext {
  private final TransportConf conf;
  private final String localId;
  private final ByteBufAllocator allocator;
  private final MessageEncoder encoder;

  /** Built when a server or a client factory is first created, so a client needs no server keys. */
  private volatile SslContext serverTls;

  private volatile SslContext clientTls;
  private int newestVersion = ProtocolVersion.CURRENT;

  /**
   * @param localId this process's id, sent in handshakes (server id or client id)
   * @param allocator allocator for every channel of this context (receive buffers, headers)
   */
  public TransportContext(TransportConf conf, String localId, ByteBufAllocator allocator) {
    this.conf = conf;
    this.localId = localId;
    this.allocator = allocator;
    this.encoder = new MessageEncoder(conf.tlsEnabled());
  }

  public TransportConf conf() {
    return conf;
  }

  /**
   * Makes this context's servers and clients speak protocol versions up to {@code version} only, as
   * a release that {@code version} was current in would: for tests of mixed releases (a rolling
   * upgrade). Call before creating servers or client factories.
   */
  public TransportContext speakingUpTo(int version) {
    if (version < ProtocolVersion.MIN_SUPPORTED || version > ProtocolVersion.CURRENT) {
      throw new IllegalArgumentException(
          "this release speaks protocol versions "
              + ProtocolVersion.describeRange(
                  ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT)
              + ", not "
              + version);
    }
    this.newestVersion = version;
    return this;
  }

  /** The newest protocol version this context speaks. */
  int newestVersion() {
    return newestVersion;
  }

  public String localId() {
    return localId;
  }

  public ByteBufAllocator allocator() {
    return allocator;
  }

  /**
   * Starts a server bound to {@code host:port} (port 0 picks a free one) that requires no
   * authentication.
   */
  public TransportServer createServer(String host, int port, RequestHandler handler) {
    return createServer(host, port, handler, ServerAuth.disabled());
  }

  /** Starts a server whose connections must authenticate as {@code auth} requires. */
  public TransportServer createServer(
      String host, int port, RequestHandler handler, ServerAuth auth) {
    if (conf.tlsEnabled() && serverTls == null) {
      serverTls = TlsContexts.forServer(conf.conf());
    }
    return new TransportServer(this, host, port, handler, auth);
  }

  /** A pool of connections that do not authenticate. */
  public TransportClientFactory createClientFactory() {
    return createClientFactory(Credentials.none());
  }

  /** A pool of connections that authenticate with {@code credentials} unless told otherwise. */
  public TransportClientFactory createClientFactory(Credentials credentials) {
    if (conf.tlsEnabled() && clientTls == null) {
      clientTls = TlsContexts.forClient(conf.conf());
    }
    return new TransportClientFactory(this, credentials);
  }

  void initServerPipeline(
      SocketChannel ch, RequestHandler handler, ReceiveBudget budget, ServerAuth auth) {
    ChannelPipeline p = ch.pipeline();
    if (serverTls != null) {
      p.addLast("tls", TlsContexts.serverHandler(serverTls, ch.alloc()));
      p.addLast("chunkedWriter", new ChunkedWriteHandler());
    }
    TransportChannel channel = new TransportChannel(ch);
    BodyPlacer placer = serverTls == null ? handler.bodyPlacer(channel) : null;
    ReceiveTarget receiveTarget = null;
    if (placer != null) {
      receiveTarget = new ReceiveTarget(ch.config().getRecvByteBufAllocator());
      ch.config().setRecvByteBufAllocator(receiveTarget);
    }
    p.addLast("encoder", encoder)
        .addLast(
            "frameDecoder",
            new FrameDecoder(
                conf.maxFrameSize(),
                budget,
                handler.frameGate(channel),
                conf.frameTimeout(),
                placer,
                receiveTarget))
        .addLast("decoder", new MessageDecoder())
        .addLast("idle", idleHandler())
        .addLast(
            "handler",
            new ServerChannelHandler(
                channel, handler, localId, auth, conf.maxFrameSize(), newestVersion));
  }

  /**
   * @param watch the peer's liveness, told when the connection's peer stays silent while requests
   *     are outstanding and asked whether it is in doubt (see {@link TransportClient}), or null
   * @param probe whether the connection is a liveness probe's, which counts any end of its
   *     handshake as an answer: TLS's own handshake timeout (Netty's 10 s) would close it
   *     unanswered and so pass for one, where the probe's deadline may be longer, so it has none
   */
  TransportClient initClientPipeline(
      SocketChannel ch, String host, int port, PeerLiveness.Watch watch, boolean probe) {
    ChannelPipeline p = ch.pipeline();
    TransportClient client =
        new TransportClient(ch, conf.requestTimeout(), conf.livenessTimeout().dividedBy(2), watch);
    p.addLast(
        "heard",
        new ChannelInboundHandlerAdapter() {
          @Override
          public void channelRead(ChannelHandlerContext ctx, Object msg) {
            client.heard();
            ctx.fireChannelRead(msg);
          }
        });
    if (clientTls != null) {
      SslHandler tls = TlsContexts.clientHandler(clientTls, conf.conf(), ch.alloc(), host, port);
      if (probe) {
        tls.setHandshakeTimeoutMillis(0);
      }
      p.addLast("tls", tls);
      p.addLast("chunkedWriter", new ChunkedWriteHandler());
    }
    p.addLast("encoder", encoder)
        .addLast("frameDecoder", new FrameDecoder(conf.maxFrameSize()))
        .addLast("decoder", new MessageDecoder())
        .addLast("idle", idleHandler())
        .addLast("handler", new ClientChannelHandler(client));
    return client;
  }

  private IdleDetector idleHandler() {
    return new IdleDetector(conf.idleTimeout().toMillis());
  }
}
