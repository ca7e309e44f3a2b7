package io.sluice.common.transport;

import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Turns a peer's host name into an address on threads of its own, never on the caller's: a lookup
 * can take seconds (a slow or unreachable DNS server), and connections are asked for on event loops
 * that serve every other connection, and under a pool's slot lock. An IP address needs no lookup
 * and is answered at once, on the caller's thread. One lookup of a name is under way at a time,
 * whoever asks meanwhile shares it: a name that hangs takes one thread, not every thread, and the
 * other names are looked up beside it.
 */
final class HostResolver implements Closeable {
  /** Names looked up at once, per connection factory; more wait for a thread. */
  static final int THREADS = 16;

  /** A blocking lookup of one name: {@link InetAddress#getByName} unless a test gives another. */
  interface Lookup {
    InetAddress byName(String host) throws UnknownHostException;
  }

  private final Lookup lookup;
  private final ThreadPoolExecutor threads;
  private final ConcurrentHashMap<String, CompletableFuture<InetAddress>> underWay =
      new ConcurrentHashMap<>();
  private volatile boolean closed;

  HostResolver() {
    this(InetAddress::getByName);
  }

  HostResolver(Lookup lookup) {
    this.lookup = lookup;
    this.threads =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            new DefaultThreadFactory("sluice-resolver", true));
    threads.allowCoreThreadTimeOut(true);
  }

  /**
   * The address of {@code host:port}; fails with {@link UnknownHostException}, or an IOException
   * once closed.
   */
  CompletableFuture<InetSocketAddress> resolve(String host, int port) {
    if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
      // A literal (an IPv6 zone id included) is parsed, never looked up.
      return CompletableFuture.completedFuture(new InetSocketAddress(host, port));
    }
    CompletableFuture<InetAddress> fresh = new CompletableFuture<>();
    CompletableFuture<InetAddress> shared = underWay.putIfAbsent(host, fresh);
    if (shared == null) {
      shared = fresh;
      start(host, fresh);
    }
    return shared.thenApply(a -> new InetSocketAddress(a, port));
  }

  private void start(String host, CompletableFuture<InetAddress> address) {
    address.whenComplete((a, e) -> underWay.remove(host, address));
    if (closed) {
      address.completeExceptionally(closedException(null));
      return;
    }
    try {
      threads.execute(
          () -> {
            try {
              address.complete(lookup.byName(host));
            } catch (UnknownHostException | RuntimeException e) {
              address.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      address.completeExceptionally(closedException(e));
    }
  }

  /** Fails every lookup still waiting or under way: nobody else would complete those waiting. */
  @Override
  public void close() {
    closed = true;
    threads.shutdownNow();
    for (CompletableFuture<InetAddress> pending : List.copyOf(underWay.values())) {
      pending.completeExceptionally(closedException(null));
    }
  }

  private static IOException closedException(Throwable cause) {
    return new IOException("the connection factory is closed", cause);
  }
}
