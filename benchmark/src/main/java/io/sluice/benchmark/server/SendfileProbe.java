package io.sluice.benchmark.server;

import io.sluice.benchmark.DiskWriteTest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What sending flushed data costs per GiB on this machine, the way a server sends it: a file
 * written past the page cache (as {@code flush.direct all} writes), sent with sendfile ({@link
 * FileChannel#transferTo}) in {@link #SEND_BYTES} pieces over loopback connections, each connection
 * a slice of the file from a thread of its own, to threads that read and drop the bytes. The
 * sending threads' CPU per GiB is the floor of a server's reads of what it flushed with as many
 * readers: the kernel brings the pages from the device into the page cache and hands them to the
 * socket, and on loopback it also delivers them to the receiving socket partly on the sender's
 * time, the more the faster they go. Not a Sluice component: it measures the machine.
 */
final class SendfileProbe {
  static final int SEND_BYTES = 4 << 20;
  private static final String FILE = "sendfile-probe";

  /** What one measurement found. */
  record Result(double bytesPerSecond, double cpuSecondsPerGib) {}

  private SendfileProbe() {}

  /**
   * Writes {@code mebibytes} past the page cache into {@code directory}, then sends them over
   * {@code connections} connections at once.
   */
  static Result coldFile(Path directory, int mebibytes, int connections)
      throws IOException, InterruptedException {
    Path file = directory.resolve(FILE);
    try {
      DiskWriteTest.deviceFile(file, mebibytes);
      return send(file, connections);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static Result send(Path file, int connections) throws IOException, InterruptedException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    AtomicLong cpuNanos = new AtomicLong();
    AtomicLong received = new AtomicLong();
    try (ServerSocketChannel listener = ServerSocketChannel.open();
        FileChannel source = FileChannel.open(file, StandardOpenOption.READ)) {
      listener.bind(new InetSocketAddress("127.0.0.1", 0));
      InetSocketAddress address =
          new InetSocketAddress("127.0.0.1", listener.socket().getLocalPort());
      long size = source.size();
      List<Thread> started = new ArrayList<>();
      List<SocketChannel> senders = new ArrayList<>();
      try {
        for (int c = 0; c < connections; c++) {
          senders.add(SocketChannel.open(address));
          SocketChannel receiving = listener.accept();
          started.add(
              start(
                  "sendfile-probe-receiver-" + c,
                  () -> received.addAndGet(drain(receiving)),
                  failed));
        }
        long t0 = System.nanoTime();
        List<Thread> sending = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
          SocketChannel socket = senders.get(c);
          long from = size * c / connections;
          long to = size * (c + 1) / connections;
          sending.add(
              start(
                  "sendfile-probe-sender-" + c,
                  () -> {
                    long cpu0 = threads.getCurrentThreadCpuTime();
                    try (socket) {
                      for (long at = from; at < to; ) {
                        at += source.transferTo(at, Math.min(SEND_BYTES, to - at), socket);
                      }
                    }
                    cpuNanos.addAndGet(threads.getCurrentThreadCpuTime() - cpu0);
                  },
                  failed));
        }
        for (Thread t : sending) {
          t.join();
        }
        for (Thread t : started) {
          t.join();
        }
        long nanos = System.nanoTime() - t0;
        if (failed.get() != null) {
          throw new IOException("the sendfile probe failed", failed.get());
        }
        if (received.get() != size) {
          throw new IOException(
              "the sendfile probe's receivers got " + received.get() + " of " + size + " bytes");
        }
        double gib = (double) size / (1L << 30);
        return new Result(size / (nanos / 1e9), cpuNanos.get() / 1e9 / gib);
      } finally {
        for (SocketChannel s : senders) {
          s.close();
        }
      }
    }
  }

  private interface Work {
    void run() throws IOException;
  }

  private static Thread start(String name, Work work, AtomicReference<Throwable> failed) {
    Thread t =
        new Thread(
            () -> {
              try {
                work.run();
              } catch (Throwable e) {
                failed.compareAndSet(null, e);
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Reads a connection to its end and drops the bytes; returns how many there were. */
  private static long drain(SocketChannel connection) throws IOException {
    try (connection) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
      long total = 0;
      for (int n; (n = connection.read(buffer.clear())) >= 0; ) {
        total += n;
      }
      return total;
    }
  }
}
