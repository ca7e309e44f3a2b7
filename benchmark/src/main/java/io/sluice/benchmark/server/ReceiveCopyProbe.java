package io.sluice.benchmark.server;

import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the kernel's TCP receive costs per GiB on this machine when the bytes land where a shuffle
 * server puts them. iperf3's receiving end reads one connection into one buffer it reuses, which
 * stays in the processor's cache; a server reads many connections into a pool far larger than the
 * caches, each read landing on memory last touched a pool's worth of bytes ago, while the bytes
 * wait longer in the socket buffers, so that neither end of the kernel's copy is in the cache.
 *
 * <p>Here sender threads write 1 MiB at a time over loopback connections, and one receiving thread
 * reads up to 256 KiB at a time, through a selector as an event loop does, each connection into its
 * own next 256 KiB of a {@link #REGION_BYTES} region, round and round. It does nothing else with
 * the bytes: its CPU per GiB is the floor of a server's receive with as many clients. Not a Sluice
 * component: it measures the machine, for {@code ServerBenchmark --probes}.
 */
final class ReceiveCopyProbe implements AutoCloseable {
  static final int READ_BYTES = 256 * 1024;
  static final long REGION_BYTES = 512L << 20;

  /** What one measurement found. */
  record Result(double bytesPerSecond, double cpuSecondsPerGib) {}

  private final List<ByteBuffer> region = new ArrayList<>();

  /** Allocates the region and touches every page once, as a pool's memory is when reused. */
  ReceiveCopyProbe() {
    for (long b = 0; b < REGION_BYTES; b += READ_BYTES) {
      ByteBuffer piece = ByteBuffer.allocateDirect(READ_BYTES);
      for (int i = 0; i < READ_BYTES; i += 4096) {
        piece.put(i, (byte) 1);
      }
      region.add(piece);
    }
  }

  /** {@code connections} connections share {@code bytes}, received into the region. */
  Result intoRegion(int connections, long bytes) throws IOException, InterruptedException {
    return receive(connections, bytes, region);
  }

  private static Result receive(int connections, long bytes, List<ByteBuffer> destinations)
      throws IOException, InterruptedException {
    long share = bytes / connections;
    long total = share * connections;
    try (ServerSocketChannel listener = ServerSocketChannel.open();
        Selector selector = Selector.open()) {
      listener.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = listener.socket().getLocalPort();
      List<Thread> senders = new ArrayList<>();
      for (int c = 0; c < connections; c++) {
        Thread sender = new Thread(() -> send(port, share), "receive-probe-sender-" + c);
        sender.setDaemon(true);
        sender.start();
        senders.add(sender);
      }
      List<SocketChannel> accepted = new ArrayList<>();
      try {
        for (int c = 0; c < connections; c++) {
          SocketChannel in = listener.accept();
          accepted.add(in);
          in.configureBlocking(false);
          in.register(selector, SelectionKey.OP_READ);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuBefore = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long received = 0;
        int next = 0;
        Map<SocketChannel, ByteBuffer> current = new HashMap<>();
        while (received < total) {
          selector.select();
          for (SelectionKey key : selector.selectedKeys()) {
            SocketChannel in = (SocketChannel) key.channel();
            ByteBuffer dst = current.get(in);
            if (dst == null || !dst.hasRemaining()) {
              dst = destinations.get(next).clear();
              next = (next + 1) % destinations.size();
              current.put(in, dst);
            }
            int n = in.read(dst);
            if (n < 0) {
              key.cancel();
            } else {
              received += n;
            }
          }
          selector.selectedKeys().clear();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = (threads.getCurrentThreadCpuTime() - cpuBefore) / 1e9;
        for (Thread sender : senders) {
          sender.join();
        }
        return new Result(total / seconds, cpu / (total / (double) (1L << 30)));
      } finally {
        for (SocketChannel in : accepted) {
          in.close();
        }
      }
    }
  }

  private static void send(int port, long bytes) {
    ByteBuffer src = ByteBuffer.allocateDirect(1 << 20);
    try (SocketChannel out = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
      long sent = 0;
      while (sent < bytes) {
        src.clear().limit((int) Math.min(src.capacity(), bytes - sent));
        while (src.hasRemaining()) {
          sent += out.write(src);
        }
      }
    } catch (IOException e) {
      throw new RuntimeException("the receive probe's sender failed", e);
    } finally {
      PlatformDependent.freeDirectBuffer(src);
    }
  }

  /** Gives the region back at once rather than when the collector finds it. */
  @Override
  public void close() {
    region.forEach(PlatformDependent::freeDirectBuffer);
    region.clear();
  }
}
