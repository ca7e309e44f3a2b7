package io.sluice.benchmark.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.PushDataRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Clients that misbehave, on plain sockets with a thread each: pipeliners write their handshake and
 * then several valid push frames back to back and never read a byte of the answers (the server's
 * answers pile up unsent); stallers write their handshake and half of a push frame and then nothing
 * (the server holds the frame's reservation until {@code transport.frame.timeout} closes them).
 * Their pushes carry blocks of map attempts that are never committed, so readers skip them.
 */
final class HostileConnections implements AutoCloseable {
  /** Map attempts of hostile pushes: far from the well-behaved clients' 0..n-1. */
  static final long FIRST_ATTEMPT = 1_000_000_000L;

  /**
   * What the hostile clients got done.
   *
   * @param pipelinersWroteAll pipeliners whose socket took every frame
   * @param stallersClosed stallers the server closed; {@code firstCloseMillis} and {@code
   *     lastCloseMillis} after they stalled
   */
  record Outcome(
      int pipeliners,
      int pipelinersWroteAll,
      int stallers,
      int stallersClosed,
      long firstCloseMillis,
      long lastCloseMillis) {}

  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final CountDownLatch go = new CountDownLatch(1);
  private final CountDownLatch closing = new CountDownLatch(1);
  private final AtomicInteger wroteAll = new AtomicInteger();
  private final AtomicInteger stallersClosed = new AtomicInteger();
  private final AtomicLong firstClose = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong lastClose = new AtomicLong();
  private final int pipeliners;
  private final int stallers;

  private HostileConnections(int pipeliners, int stallers) {
    this.pipeliners = pipeliners;
    this.stallers = stallers;
  }

  /**
   * Connects every hostile client and has it send its handshake; they write nothing more until
   * {@link #start()}.
   */
  static HostileConnections connect(
      String host, int port, ScaleSettings settings, String appId, int shuffleId, int partitions)
      throws IOException {
    HostileConnections hostile = new HostileConnections(settings.pipeliners(), settings.stallers());
    Random random = new Random(11);
    byte[] body = new byte[settings.pipelineFrameKib() << 10];
    random.nextBytes(body);
    for (int i = 0; i < settings.pipeliners(); i++) {
      int pipeliner = i;
      Socket s = hostile.open(host, port, "pipeliner-" + i);
      hostile.thread(
          "pipeliner-" + i,
          () -> {
            OutputStream out = s.getOutputStream();
            for (int f = 0; f < settings.pipelineFrames(); f++) {
              // and never reads an answer
              write(
                  out,
                  push(
                      appId,
                      shuffleId,
                      (pipeliner + f) % partitions,
                      FIRST_ATTEMPT + pipeliner,
                      f,
                      body),
                  Long.MAX_VALUE);
            }
            out.flush();
            hostile.wroteAll.incrementAndGet();
            hostile.closing.await();
          });
    }
    byte[] stallBody = new byte[settings.stallFrameMib() << 20];
    random.nextBytes(stallBody);
    for (int i = 0; i < settings.stallers(); i++) {
      PushDataRequest frame =
          push(
              appId,
              shuffleId,
              i % partitions,
              FIRST_ATTEMPT + settings.pipeliners() + i,
              0,
              stallBody);
      Socket s = hostile.open(host, port, "staller-" + i);
      hostile.thread(
          "staller-" + i,
          () -> {
            // Half of the frame, and then nothing more.
            write(s.getOutputStream(), frame, stallBody.length / 2);
            s.getOutputStream().flush();
            long stalled = System.nanoTime();
            drainUntilClosed(s.getInputStream());
            if (hostile.closing.getCount() > 0) {
              long millis = (System.nanoTime() - stalled) / 1_000_000;
              hostile.stallersClosed.incrementAndGet();
              hostile.firstClose.accumulateAndGet(millis, Math::min);
              hostile.lastClose.accumulateAndGet(millis, Math::max);
            }
          });
    }
    return hostile;
  }

  /** Lets every hostile client write what it writes. */
  void start() {
    go.countDown();
  }

  Outcome outcome() {
    int closed = stallersClosed.get();
    return new Outcome(
        pipeliners,
        wroteAll.get(),
        stallers,
        closed,
        closed == 0 ? -1 : firstClose.get(),
        closed == 0 ? -1 : lastClose.get());
  }

  /** Closes every hostile socket and waits for the threads. */
  @Override
  public void close() throws InterruptedException {
    closing.countDown();
    go.countDown();
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closed already
      }
    }
    for (Thread t : threads) {
      t.join(30_000);
    }
  }

  private Socket open(String host, int port, String name) throws IOException {
    Socket s = new Socket(host, port);
    sockets.add(s);
    write(
        s.getOutputStream(),
        new HandshakeRequest(1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, name),
        Long.MAX_VALUE);
    s.getOutputStream().flush();
    return s;
  }

  private void thread(String name, Body body) {
    Thread t =
        new Thread(
            () -> {
              try {
                go.await();
                body.run();
              } catch (Exception e) {
                // a socket the server or this class closed: expected either way
              }
            },
            "hostile-" + name);
    t.setDaemon(true);
    t.start();
    threads.add(t);
  }

  private static PushDataRequest push(
      String appId, int shuffleId, int partition, long attempt, int sequence, byte[] body) {
    return new PushDataRequest(
        2 + sequence,
        appId,
        shuffleId,
        List.of(),
        List.of(
            new BlockDescriptor(
                partition, attempt, sequence, body.length, body.length, Crc32c.of(body))),
        new NettyManagedBuffer(Unpooled.wrappedBuffer(body)));
  }

  /**
   * Writes the first {@code limit} bytes of what a client puts on the wire for {@code message}
   * (length field and frame), piece by piece as the encoder gives them, so that a body shared by
   * many frames is never copied.
   */
  private static void write(OutputStream out, Message message, long limit) throws IOException {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));
    try {
      channel.writeOutbound(message);
      long left = limit;
      Object part;
      while ((part = channel.readOutbound()) != null) {
        ByteBuf buf = (ByteBuf) part;
        try {
          int n = (int) Math.min(left, buf.readableBytes());
          buf.getBytes(buf.readerIndex(), out, n);
          left -= n;
        } finally {
          buf.release();
        }
      }
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  /** Reads (the handshake's answer, then nothing) until the server closes the connection. */
  private static void drainUntilClosed(InputStream in) {
    byte[] sink = new byte[8192];
    try {
      while (in.read(sink) >= 0) {
        // keep reading until the end of the stream
      }
    } catch (IOException e) {
      // reset or closed: closed either way
    }
  }

  @FunctionalInterface
  private interface Body {
    void run() throws Exception;
  }
}
