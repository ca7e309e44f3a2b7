package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.transport.ReceiveBudget;
import io.sluice.common.transport.TransportOptions;
import io.sluice.fixtures.Await;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Receive memory shared fairly: eight connections stop in the middle of maximum-size frames (a
 * hostile or frozen client), with the default receive memory and frame size, and a well-behaved
 * client on its own connection writes and reads back its data meanwhile, in default-size pushes.
 * The stalled frames hold their reservations throughout (the frame timeout is ten minutes here):
 * the good client is not let through by their closing but by the budget, which keeps room behind
 * each frame for frames of half its size ({@link ReceiveBudget}). Before, it waited behind them
 * until the frame timeout closed them.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StalledFramesFairnessTest {
  private static final int STALLERS = 8;
  private static final int ROUNDS = 5;

  @TempDir Path dir;

  @Test
  void connectionsStalledInMaximumSizeFramesDelayNoClientWithSmallerFrames() throws Exception {
    SluiceConf conf =
        TestServers.conf(
            dir,
            Map.of(
                ServerOptions.BUFFER_CAPACITY.key(), "64m",
                ServerOptions.READ_BUFFER_CAPACITY.key(), "16m",
                TransportOptions.FRAME_TIMEOUT.key(), "10min"));
    int maxFrame = Math.toIntExact(conf.get(TransportOptions.MAX_FRAME_SIZE));
    List<Socket> stallers = new ArrayList<>();
    try (ShuffleServer server = new ShuffleServer(conf)) {
      byte[] handshake =
          ServerTestClient.encode(
              new HandshakeRequest(
                  1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "stalling"));
      byte[] push =
          ServerTestClient.encode(ServerTestClient.pushFillingFrame("app-stalling", maxFrame));
      List<Thread> writers = new ArrayList<>();
      for (int i = 0; i < STALLERS; i++) {
        Socket s = new Socket("127.0.0.1", server.port());
        stallers.add(s);
        // The first part of the frame, then nothing: written on a thread of its own, since the
        // server does not read what a connection waiting for receive memory sends.
        Thread writer =
            new Thread(
                () -> {
                  try {
                    OutputStream out = s.getOutputStream();
                    out.write(handshake);
                    out.write(push, 0, 1 << 20);
                    out.flush();
                  } catch (Exception e) {
                    // closed by the test at the end
                  }
                },
                "staller-" + i);
        writer.setDaemon(true);
        writer.start();
        writers.add(writer);
      }
      ReceiveBudget budget = server.receiveBudget();
      // Every stalled frame holds its whole length or waits for it.
      BooleanSupplier allStalled =
          () ->
              budget.reservedBytes() >= maxFrame
                  && budget.reservedBytes() / maxFrame + budget.queuedCount() == STALLERS;
      Await.until(
          allStalled,
          () ->
              "stalled frames reserved "
                  + budget.reservedBytes()
                  + " bytes, "
                  + budget.queuedCount()
                  + " wait");

      Random random = new Random(11);
      long slowestNanos = 0;
      try (ServerTestClient good =
          new ServerTestClient(
              ServerTestClient.address(server), "well-behaved", SluiceConf.empty())) {
        good.registerApp("app-good");
        for (int round = 0; round < ROUNDS; round++) {
          long start = System.nanoTime();
          Map<Integer, List<byte[]>> blocks =
              Map.of(
                  0, List.of(randomBytes(random, 3_000_000)),
                  1, List.of(randomBytes(random, 1_000_000), randomBytes(random, 2_500_000)));
          good.registerShuffle("app-good", round, 2);
          Map<Integer, List<BlockKey>> keys =
              good.writeMapOutput("app-good", round, 2, 0, 1L, blocks);
          for (int p = 0; p < 2; p++) {
            Map<BlockKey, byte[]> read = good.readPartition("app-good", round, p, 1L);
            assertEquals(keys.get(p), List.copyOf(read.keySet()), "partition " + p);
            for (int b = 0; b < keys.get(p).size(); b++) {
              assertArrayEquals(blocks.get(p).get(b), read.get(keys.get(p).get(b)));
            }
          }
          slowestNanos = Math.max(slowestNanos, System.nanoTime() - start);
        }
      }
      System.out.printf(
          "%d connections stalled in %d MiB frames: the slowest of %d rounds of a "
              + "well-behaved client (6.5 MB pushed and read back) took %d ms%n",
          STALLERS, maxFrame >> 20, ROUNDS, TimeUnit.NANOSECONDS.toMillis(slowestNanos));
      assertTrue(
          allStalled.getAsBoolean(),
          "the stalled frames still hold and wait: the client got through beside them");
      for (Socket s : stallers) {
        assertTrue(isOpen(s), "no stalled connection was closed");
      }
      for (Socket s : stallers) {
        s.close();
      }
      for (Thread t : writers) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      Await.until(
          () -> budget.reservedBytes() == 0 && budget.queuedCount() == 0,
          () -> budget.reservedBytes() + " bytes still reserved");
    } finally {
      for (Socket s : stallers) {
        s.close();
      }
    }
  }

  /** Whether the server has not closed {@code s}: nothing to read and no end of stream. */
  private static boolean isOpen(Socket s) throws Exception {
    s.setSoTimeout(50);
    InputStream in = s.getInputStream();
    byte[] sink = new byte[8192];
    try {
      while (true) {
        int n = in.read(sink);
        if (n < 0) {
          return false;
        }
        // the handshake's answer
      }
    } catch (java.net.SocketTimeoutException e) {
      return true;
    }
  }

  private static byte[] randomBytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
