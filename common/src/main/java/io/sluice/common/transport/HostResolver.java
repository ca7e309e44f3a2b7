package io.sluice.common.transport;

import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Turns a peer's host name into an address on threads of its own, never on the caller's: a lookup
 * can take seconds (a slow or unreachable DNS server), and connections are asked for on event loops
 * that serve every other connection, and under a pool's slot lock. An IP address needs no lookup
 * and is answered at once, on the caller's thread.
 */
final class HostResolver implements Closeable {
  /** Lookups at once; more wait their turn, each bounded by its caller's connect timeout. */
  static final int THREADS = 4;

  /** A blocking lookup of one name: {@link InetAddress#getByName} unless a test gives another. */
  interface Lookup {
    InetAddress byName(String host) throws UnknownHostException;
  }

  private final Lookup lookup;
  private final ThreadPoolExecutor threads;

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
    byte[] literal = NetUtil.createByteArrayFromIpAddressString(host);
    if (literal != null) {
      try {
        return CompletableFuture.completedFuture(
            new InetSocketAddress(InetAddress.getByAddress(host, literal), port));
      } catch (UnknownHostException e) {
        return CompletableFuture.failedFuture(e); // not reached: the length is an address's
      }
    }
    CompletableFuture<InetSocketAddress> address = new CompletableFuture<>();
    try {
      threads.execute(
          () -> {
            try {
              address.complete(new InetSocketAddress(lookup.byName(host), port));
            } catch (UnknownHostException | RuntimeException e) {
              address.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      address.completeExceptionally(new IOException("the connection factory is closed", e));
    }
    return address;
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
