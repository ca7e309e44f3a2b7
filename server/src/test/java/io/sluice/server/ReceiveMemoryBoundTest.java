package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.transport.TransportOptions;
import io.sluice.fixtures.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network pool's bound under hostile clients, against a real server on loopback: 500
 * connections, most pipelining maximum-size pushes without reading a single answer, the others
 * stopped in the middle of a maximum-size frame. The server's receive buffers, sampled throughout,
 * never pass the documented network allowance; a well-behaved client on its own connections gets
 * its data through and back intact meanwhile; stalled connections are closed after the frame
 * timeout and everything they reserved is given back.
 */
class ReceiveMemoryBoundTest {
  private static final int MAX_FRAME = 2 << 20;

  /** With the stallers, 500 hostile connections, beside the well-behaved client's. */
  private static final int PIPELINERS = 484;

  private static final int FRAMES_PER_PIPELINER = 2;
  private static final int STALLERS = 16;
  private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(5);
  private static final String APP = "app-well-behaved";

  @TempDir Path dir;

  @Test
  void hostileConnectionsCannotTakeTheServerPastItsNetworkAllowance() throws Exception {
    SluiceConf conf =
        TestServers.conf(
            dir,
            Map.of(
                ServerOptions.BUFFER_CAPACITY.key(),
                "64m",
                ServerOptions.READ_BUFFER_CAPACITY.key(),
                "16m",
                TransportOptions.MAX_FRAME_SIZE.key(),
                String.valueOf(MAX_FRAME),
                TransportOptions.RECEIVE_MEMORY.key(),
                "8m",
                TransportOptions.MAX_CONNECTIONS.key(),
                String.valueOf(PIPELINERS + STALLERS + 16),
                TransportOptions.FRAME_TIMEOUT.key(),
                FRAME_TIMEOUT.toMillis() + "ms"));
    long allowance = ServerJvmOptions.networkAllowance(conf);
    List<Socket> sockets = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicLong peakNetwork = new AtomicLong();
    AtomicLong peakReserved = new AtomicLong();
    AtomicInteger stallersClosed = new AtomicInteger();
    AtomicInteger pipelinersDone = new AtomicInteger();
    AtomicInteger pipelinersFinished = new AtomicInteger();
    try (ShuffleServer server = new ShuffleServer(conf)) {
      Thread sampler =
          new Thread(
              () -> {
                while (sampling.get()) {
                  peakNetwork.accumulateAndGet(
                      server.networkAllocator().metric().usedDirectMemory(), Math::max);
                  peakReserved.accumulateAndGet(server.receiveBudget().reservedBytes(), Math::max);
                  // Often enough for frames of megabytes; a spinning sampler would take a core
                  // of a small machine from the server it watches.
                  LockSupport.parkNanos(20_000);
                }
              },
              "network-sampler");
      sampler.start();

      byte[] handshake =
          ServerTestClient.encode(
              new HandshakeRequest(
                  1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "hostile"));
      // A push to an application nobody registered: the server takes the whole frame, then refuses.
      byte[] push =
          ServerTestClient.encode(
              ServerTestClient.pushFillingFrame("app-nobody-registered", MAX_FRAME));
      for (int i = 0; i < PIPELINERS; i++) {
        threads.add(
            start(
                "pipeliner-" + i,
                () -> {
                  boolean wroteAll = false;
                  try (Socket s = connect(server, sockets)) {
                    OutputStream out = s.getOutputStream();
                    out.write(handshake);
                    for (int f = 0; f < FRAMES_PER_PIPELINER; f++) {
                      out.write(push); // never reads an answer
                    }
                    out.flush();
                    wroteAll = true;
                    pipelinersDone.incrementAndGet();
                    pipelinersFinished.incrementAndGet();
                    waitUntilClosed(s);
                  } finally {
                    // Also when the server closed it: on a loaded machine a thread of this test may
                    // not send its frame within the frame timeout.
                    if (!wroteAll) {
                      pipelinersFinished.incrementAndGet();
                    }
                  }
                }));
      }
      for (int i = 0; i < STALLERS; i++) {
        threads.add(
            start(
                "staller-" + i,
                () -> {
                  try (Socket s = connect(server, sockets)) {
                    OutputStream out = s.getOutputStream();
                    out.write(handshake);
                    out.write(push, 0, push.length / 2); // and then nothing more
                    out.flush();
                    waitUntilClosed(s);
                    stallersClosed.incrementAndGet();
                  }
                }));
      }

      // Meanwhile a well-behaved application writes and reads back its data.
      Random random = new Random(7);
      Map<Integer, List<byte[]>> blocks =
          Map.of(
              0, List.of(randomBytes(random, 300_000), randomBytes(random, 700_000)),
              1, List.of(randomBytes(random, 1_500_000)));
      // Its connection is accepted among the 500 hostile ones, whose threads and frames take both
      // cores of a small machine: it may wait longer than the default connect timeout for that.
      SluiceConf patient = SluiceConf.empty().with(TransportOptions.CONNECT_TIMEOUT, "120s");
      try (ServerTestClient good =
          new ServerTestClient(ServerTestClient.address(server), "test-client", patient)) {
        good.registerApp(APP);
        good.registerShuffle(APP, 0, 2);
        Map<Integer, List<BlockKey>> keys = good.writeMapOutput(APP, 0, 2, 0, 1L, blocks);
        for (int p = 0; p < 2; p++) {
          Map<BlockKey, byte[]> read = good.readPartition(APP, 0, p, new long[] {1L});
          assertEquals(Set.copyOf(keys.get(p)), read.keySet(), "partition " + p);
          for (int b = 0; b < keys.get(p).size(); b++) {
            assertArrayEquals(blocks.get(p).get(b), read.get(keys.get(p).get(b)));
          }
        }
      }

      Await.until(
          () -> stallersClosed.get() == STALLERS,
          Duration.ofMinutes(2),
          () -> stallersClosed.get() + " of " + STALLERS + " stalled connections closed");
      Await.until(
          () -> pipelinersFinished.get() == PIPELINERS,
          Duration.ofMinutes(3),
          () -> pipelinersDone.get() + " of " + PIPELINERS + " pipeliners wrote everything");
      for (Socket s : sockets) {
        s.close();
      }
      Await.until(
          () ->
              server.receiveBudget().reservedBytes() == 0
                  && server.receiveBudget().queuedCount() == 0,
          Duration.ofMinutes(1),
          () -> server.receiveBudget().reservedBytes() + " bytes still reserved");
      sampling.set(false);
      sampler.join();

      System.out.printf(
          "%d pipelining (%d wrote every frame) and %d stalled connections: peak "
              + "network pool %d MiB (allowance %d MiB), peak receive reservations %d MiB of %d "
              + "MiB%n",
          PIPELINERS,
          pipelinersDone.get(),
          STALLERS,
          peakNetwork.get() >> 20,
          allowance >> 20,
          peakReserved.get() >> 20,
          server.receiveBudget().capacity() >> 20);
      assertTrue(
          peakNetwork.get() <= allowance,
          "network pool peaked at " + peakNetwork.get() + " > " + allowance);
      assertTrue(peakReserved.get() <= server.receiveBudget().capacity());
      assertTrue(peakReserved.get() >= 2L * MAX_FRAME, "the attack did reach the budget");
    } finally {
      sampling.set(false);
      for (Socket s : sockets) {
        s.close();
      }
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
    }
  }

  @Test
  void connectionsBeyondTheLimitAreClosedAsTheyAreAccepted() throws Exception {
    SluiceConf conf = TestServers.conf(dir, Map.of(TransportOptions.MAX_CONNECTIONS.key(), "3"));
    List<Socket> sockets = new ArrayList<>();
    try (ShuffleServer server = new ShuffleServer(conf)) {
      byte[] handshake =
          ServerTestClient.encode(
              new HandshakeRequest(
                  1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "counted"));
      for (int i = 0; i < 3; i++) {
        Socket s = connect(server, sockets);
        s.getOutputStream().write(handshake);
        assertTrue(s.getInputStream().read() >= 0, "connection " + i + " is answered");
      }
      Socket fourth = connect(server, sockets);
      fourth.setSoTimeout(30_000);
      assertEquals(-1, readAll(fourth.getInputStream()), "the fourth connection is closed");

      sockets.remove(0).close();
      Await.until(
          () -> server.connectionCount() == 2,
          Duration.ofSeconds(30),
          () -> server.connectionCount() + " connections counted");
      Socket again = connect(server, sockets);
      again.getOutputStream().write(handshake);
      assertTrue(again.getInputStream().read() >= 0, "a freed place is taken again");
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  /** A connection to the server, which the test closes at the end. */
  private static Socket connect(ShuffleServer server, List<Socket> sockets) throws IOException {
    Socket s = new Socket("127.0.0.1", server.port());
    sockets.add(s);
    return s;
  }

  private static void waitUntilClosed(Socket s) {
    try {
      readAll(s.getInputStream());
    } catch (IOException e) {
      // reset or closed by this test: closed either way
    }
  }

  /** Reads until the end of the stream; returns -1 then. */
  private static int readAll(InputStream in) throws IOException {
    byte[] sink = new byte[8192];
    while (in.read(sink) >= 0) {
      // an answer; keep reading until the server closes
    }
    return -1;
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread start(String name, Body body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Exception e) {
                // A connection the test closed at the end, or one the server closed: both expected.
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static byte[] randomBytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
