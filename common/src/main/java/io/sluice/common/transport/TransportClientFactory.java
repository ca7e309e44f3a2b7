package io.sluice.common.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.common.auth.Credentials;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pool of {@code transport.connections.per.peer} connections per remote address, shared by every
 * task of a JVM. Connections are opened lazily on first use, replaced when they break, and close
 * themselves after {@code transport.idle.timeout} without traffic.
 */
public final class TransportClientFactory implements Connections, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(TransportClientFactory.class);
  private static final AttributeKey<TransportClient> CLIENT = AttributeKey.valueOf("sluiceClient");

  private final TransportContext context;
  private final Credentials credentials;
  private final TransportConf conf;
  private final EventLoopGroup workerGroup;
  private final Bootstrap bootstrap;
  private final ConcurrentHashMap<String, Slots> pools = new ConcurrentHashMap<>();

  /** Null when {@code transport.liveness.timeout} is 0. */
  private final PeerLiveness liveness;

  private final HostResolver resolver;

  TransportClientFactory(TransportContext context, Credentials credentials) {
    this(context, credentials, new HostResolver());
  }

  TransportClientFactory(TransportContext context, Credentials credentials, HostResolver resolver) {
    this.context = context;
    this.resolver = resolver;
    this.credentials = credentials;
    this.conf = context.conf();
    IoMode mode = NettyTransports.resolve(conf.ioMode());
    this.workerGroup = NettyTransports.eventLoopGroup(mode, conf.clientThreads(), "sluice-client");
    this.bootstrap =
        new Bootstrap()
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
    long livenessMillis = conf.livenessTimeout().toMillis();
    this.liveness =
        livenessMillis > 0
            ? new PeerLiveness(livenessMillis, this::probe, this::giveUp, workerGroup)
            : null;
  }

  /**
   * A pooled, handshaken connection to {@code host:port}, without blocking: completes at once with
   * a live pooled connection, or when a new one has connected and finished its handshake (or
   * failed, with an {@link IOException}, within {@code transport.connect.timeout}). Concurrent
   * callers that pick the same slot share one connection attempt. Safe on an event loop.
   */
  @Override
  public CompletableFuture<TransportClient> getClientAsync(String host, int port) {
    return getClientAsync(host, port, credentials);
  }

  @Override
  public boolean suspects(String host, int port) {
    return liveness != null && liveness.suspected(host, port);
  }

  /** These pooled connections, authenticating with {@code as} instead of this factory's. */
  public Connections as(Credentials as) {
    TransportClientFactory factory = this;
    return new Connections() {
      @Override
      public CompletableFuture<TransportClient> getClientAsync(String host, int port) {
        return factory.getClientAsync(host, port, as);
      }

      @Override
      public boolean suspects(String host, int port) {
        return factory.suspects(host, port);
      }
    };
  }

  /**
   * Like {@link #getClientAsync(String, int)}, for connections that authenticate with {@code as}
   * instead of this factory's credentials (a server forwarding one application's blocks). Each set
   * of credentials has its own connections.
   */
  public CompletableFuture<TransportClient> getClientAsync(String host, int port, Credentials as) {
    PeerUnresponsiveException refused = liveness == null ? null : liveness.refusal(host, port);
    if (refused != null) {
      return CompletableFuture.failedFuture(refused);
    }
    Slots slots =
        pools.computeIfAbsent(
            poolPrefix(host, port) + as.poolKey(), k -> new Slots(conf.connectionsPerPeer()));
    int i = ThreadLocalRandom.current().nextInt(slots.clients.length);
    synchronized (slots) {
      // Again under the lock: a peer given up meanwhile has had its slots emptied (giveUp), and
      // must not get a new connection attempt that nobody would fail before its connect timeout.
      refused = liveness == null ? null : liveness.refusal(host, port);
      if (refused != null) {
        return CompletableFuture.failedFuture(refused);
      }
      CompletableFuture<TransportClient> current = slots.clients[i];
      if (current != null && (!current.isDone() || isLive(current))) {
        return current;
      }
      CompletableFuture<TransportClient> fresh = connect(host, port, as);
      slots.clients[i] = fresh;
      return fresh;
    }
  }

  /** A new connection outside the pool; the caller closes it. */
  public TransportClient createUnpooledClient(String host, int port)
      throws IOException, InterruptedException {
    return await(connect(host, port, credentials), host, port);
  }

  private static String poolPrefix(String host, int port) {
    return host + ":" + port + "#";
  }

  private static boolean isLive(CompletableFuture<TransportClient> f) {
    return !f.isCompletedExceptionally() && f.getNow(null).isActive();
  }

  private static TransportClient await(CompletableFuture<TransportClient> f, String host, int port)
      throws IOException, InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException io
          ? io
          : new IOException("cannot connect to " + host + ":" + port, cause);
    }
  }

  /**
   * Connects, shakes hands and authenticates; fails with an IOException on any error or after the
   * timeout.
   */
  private CompletableFuture<TransportClient> connect(String host, int port, Credentials as) {
    CompletableFuture<TransportClient> result = new CompletableFuture<>();
    long timeoutMillis = conf.connectTimeout().toMillis();
    // The timeout bounds the name's lookup as well as the connection and the handshake.
    ScheduledFuture<?> deadline =
        workerGroup.schedule(
            () ->
                result.completeExceptionally(
                    new IOException(
                        "timed out connecting to "
                            + host
                            + ":"
                            + port
                            + " after "
                            + timeoutMillis
                            + " ms ("
                            + TransportOptions.CONNECT_TIMEOUT.key()
                            + ")")),
            timeoutMillis,
            TimeUnit.MILLISECONDS);
    result.whenComplete((c, e) -> deadline.cancel(false));
    resolver
        .resolve(host, port)
        .whenComplete(
            (address, error) -> {
              if (error != null) {
                result.completeExceptionally(lookupFailed(host, error));
              } else if (!result.isDone()) {
                connectTo(address, host, port, as, result);
              }
            });
    return result;
  }

  private static IOException lookupFailed(String host, Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return cause instanceof IOException io && !(cause instanceof UnknownHostException)
        ? io // the factory closed
        : new IOException("cannot resolve " + host + ": " + cause, cause);
  }

  /** Connects to the resolved {@code address} of {@code host:port}, completing {@code result}. */
  private void connectTo(
      InetSocketAddress address,
      String host,
      int port,
      Credentials as,
      CompletableFuture<TransportClient> result) {
    if (workerGroup.isShuttingDown()) {
      // Its event loops would drop the connection's listener, and nothing would end the wait.
      result.completeExceptionally(new IOException("the connection factory is closed"));
      return;
    }
    PeerLiveness.Watch watch = liveness == null ? null : liveness.watch(host, port);
    ChannelFuture connect = bootstrap(host, port, watch, false).connect(address);
    result.whenComplete(
        (c, e) -> {
          if (e != null) {
            connect.channel().close(); // timed out, or failed from outside: see giveUp
          }
        });
    connect.addListener(
        (ChannelFutureListener)
            f -> {
              if (!f.isSuccess()) {
                result.completeExceptionally(
                    new IOException(
                        "cannot connect to " + host + ":" + port + ": " + f.cause(), f.cause()));
                return;
              }
              TransportClient client = f.channel().attr(CLIENT).get();
              client
                  .request(
                      new HandshakeRequest(
                          TransportClient.nextRequestId(),
                          ProtocolVersion.MIN_SUPPORTED,
                          context.newestVersion(),
                          context.localId()),
                      HandshakeResponse.class)
                  .thenCompose(
                      hello -> {
                        client.handshaken(hello);
                        return ClientAuthentication.run(client, as, hello.protocolVersion())
                            .thenApply(authenticated -> hello);
                      })
                  .whenComplete(
                      (hello, error) -> {
                        if (error != null) {
                          Throwable cause =
                              error instanceof CompletionException ? error.getCause() : error;
                          SslHandler tls = f.channel().pipeline().get(SslHandler.class);
                          f.channel().close();
                          if (tls == null) {
                            failHandshake(result, host, port, cause, null);
                          } else {
                            // The request may fail before the TLS handshake reports its own failure
                            // (which of the two the failure reaches first varies): wait for the
                            // handshake's outcome, which the close settles, and name its reason
                            // rather than the symptom.
                            tls.handshakeFuture()
                                .addListener(
                                    h -> failHandshake(result, host, port, cause, h.cause()));
                          }
                        } else {
                          LOG.debug(
                              "Connected to {}:{} (server {}, protocol {}, {})",
                              host,
                              port,
                              hello.serverId(),
                              hello.protocolVersion(),
                              as);
                          if (!result.complete(client)) {
                            f.channel().close();
                          }
                        }
                      });
            });
  }

  /**
   * @param probe whether the connection is a liveness probe's: its own deadline bounds it, TLS's
   *     handshake included
   */
  private Bootstrap bootstrap(String host, int port, PeerLiveness.Watch watch, boolean probe) {
    return bootstrap
        .clone()
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.attr(CLIENT).set(context.initClientPipeline(ch, host, port, watch, probe));
              }
            });
  }

  /**
   * Whether a process answers at {@code host:port} within {@code timeoutMillis}: a new connection,
   * outside the pool, and a handshake. Any answer counts, a refusal or the peer closing the
   * connection included; no connection, or silence, does not, nor a name that cannot be looked up
   * in that time. The connection is closed after. Package-private for tests.
   */
  CompletableFuture<Boolean> probe(String host, int port, long timeoutMillis) {
    CompletableFuture<Boolean> answered = new CompletableFuture<>();
    long start = System.nanoTime();
    CompletableFuture<InetSocketAddress> address = resolver.resolve(host, port);
    if (!address.isDone()) {
      ScheduledFuture<?> lookup =
          workerGroup.schedule(
              () -> answered.complete(false), timeoutMillis, TimeUnit.MILLISECONDS);
      address.whenComplete((a, e) -> lookup.cancel(false));
    }
    address.whenComplete(
        (a, error) -> {
          if (error != null) {
            answered.complete(false);
          } else if (!answered.isDone()) {
            long left = timeoutMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            probeAt(a, host, port, Math.max(1, left), answered);
          }
        });
    return answered;
  }

  private void probeAt(
      InetSocketAddress address,
      String host,
      int port,
      long timeoutMillis,
      CompletableFuture<Boolean> answered) {
    long start = System.nanoTime();
    // Netty's connect timeout bounds the connection; the handshake gets what is left of the time,
    // timed on the channel's own event loop, which is also the one that reads the answer.
    ChannelFuture connect =
        bootstrap(host, port, null, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
            .connect(address);
    answered.whenComplete((alive, e) -> connect.channel().close());
    connect.addListener(
        (ChannelFutureListener)
            f -> {
              if (!f.isSuccess()) {
                answered.complete(false);
                return;
              }
              long left = timeoutMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
              ScheduledFuture<?> deadline =
                  f.channel()
                      .eventLoop()
                      .schedule(
                          () -> answered.complete(false), Math.max(0, left), TimeUnit.MILLISECONDS);
              answered.whenComplete((alive, e) -> deadline.cancel(false));
              f.channel()
                  .attr(CLIENT)
                  .get()
                  .request(
                      new HandshakeRequest(
                          TransportClient.nextRequestId(),
                          ProtocolVersion.MIN_SUPPORTED,
                          context.newestVersion(),
                          context.localId() + ":probe"),
                      HandshakeResponse.class)
                  .whenComplete((hello, error) -> answered.complete(true));
            });
  }

  /**
   * Fails what is outstanding on every pooled connection to {@code host:port}, and closes them. The
   * slots are emptied under their lock, and the futures and requests failed after it: failing them
   * runs their callers' code (a pusher's, under its own lock), which may be waiting for this very
   * slot lock in {@link #getClientAsync}.
   */
  private void giveUp(String host, int port, PeerUnresponsiveException cause) {
    String prefix = poolPrefix(host, port);
    List<CompletableFuture<TransportClient>> taken = new ArrayList<>();
    pools.forEach(
        (key, slots) -> {
          if (key.startsWith(prefix)) {
            synchronized (slots) {
              for (int i = 0; i < slots.clients.length; i++) {
                if (slots.clients[i] != null) {
                  taken.add(slots.clients[i]);
                  slots.clients[i] = null;
                }
              }
            }
          }
        });
    for (CompletableFuture<TransportClient> c : taken) {
      if (c.completeExceptionally(cause) || c.isCompletedExceptionally()) {
        continue; // a connection attempt under way fails now and closes its channel
      }
      TransportClient client = c.getNow(null);
      client.failAll(cause);
      client.channel().close();
    }
  }

  /**
   * Fails a connection whose handshake request failed with {@code cause}: in the TLS handshake's
   * name when that failed for a reason of its own ({@code tls}), not merely because the channel
   * closed.
   */
  private static void failHandshake(
      CompletableFuture<TransportClient> result,
      String host,
      int port,
      Throwable cause,
      Throwable tls) {
    if (tls != null && !(tls instanceof ClosedChannelException)) {
      result.completeExceptionally(
          new IOException("TLS handshake with " + host + ":" + port + " failed: " + tls, tls));
      return;
    }
    result.completeExceptionally(
        cause instanceof IOException
            ? cause
            : new IOException(
                "handshake with " + host + ":" + port + " failed: " + NetworkErrors.describe(cause),
                cause));
  }

  /** Number of open pooled connections, over all addresses. */
  public int activeConnections() {
    int n = 0;
    for (Slots s : pools.values()) {
      synchronized (s) {
        for (CompletableFuture<TransportClient> c : s.clients) {
          if (c != null && c.isDone() && isLive(c)) {
            n++;
          }
        }
      }
    }
    return n;
  }

  @Override
  public void close() {
    for (Slots s : pools.values()) {
      synchronized (s) {
        for (CompletableFuture<TransportClient> c : s.clients) {
          if (c != null) {
            c.thenAccept(TransportClient::close);
          }
        }
      }
    }
    pools.clear();
    resolver.close();
    workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One address's connections, or connection attempts under way; guarded by the instance. */
  private static final class Slots {
    final CompletableFuture<TransportClient>[] clients;

    @SuppressWarnings("unchecked")
    Slots(int n) {
      clients = new CompletableFuture[n];
    }
  }
}
