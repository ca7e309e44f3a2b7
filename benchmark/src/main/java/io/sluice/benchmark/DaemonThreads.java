package io.sluice.benchmark;

import java.util.concurrent.ThreadFactory;

/**
 * Daemon threads of one name, plain ones: Netty's own factory makes threads that get pooled
 * allocator caches, which Spark's task threads, the clients these benchmarks stand for, do not.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  public static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
