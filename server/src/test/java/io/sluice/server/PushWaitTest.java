package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.transport.RemoteException;
import io.sluice.server.replication.ReplicaForwarder;
import io.sluice.server.storage.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Once the push pool refused a push for want of room, the next push waits unread in its client's
 * socket while flushes make room ({@code buffer.push.wait}), and is then taken without a refusal;
 * one that waits longer than that is read and refused with NO_BUFFER as before. The disk is stalled
 * by the test, so the pool stays full for as long as it says; requests on other connections are
 * served meanwhile, and pushes a server forwards are never held.
 */
class PushWaitTest {
  private static final String APP = "app-push-wait";
  private static final int MIB = 1 << 20;

  @TempDir Path dir;
  private final StalledDisk disk = new StalledDisk();
  private ShuffleServer server;
  private ServerTestClient writer;
  private ServerTestClient other;

  @AfterEach
  void stop() {
    disk.resume();
    if (writer != null) {
      writer.close();
    }
    if (other != null) {
      other.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Real files, whose opening for writing blocks while the test stalls the disk. */
  private static final class StalledDisk implements FileIo {
    private volatile CountDownLatch stall;

    void stall() {
      stall = new CountDownLatch(1);
    }

    void resume() {
      CountDownLatch latch = stall;
      if (latch != null) {
        latch.countDown();
      }
    }

    private void awaitDisk() throws IOException {
      CountDownLatch latch = stall;
      try {
        if (latch != null && !latch.await(60, TimeUnit.SECONDS)) {
          throw new IOException("the test never resumed the disk");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }

    @Override
    public FileChannel openForAppend(Path p) throws IOException {
      awaitDisk();
      return FileIo.DEFAULT.openForAppend(p);
    }

    @Override
    public FileChannel openForRead(Path p) throws IOException {
      return FileIo.DEFAULT.openForRead(p);
    }

    @Override
    public FileChannel openForDirectWrite(Path p) throws IOException {
      awaitDisk();
      return FileIo.DEFAULT.openForDirectWrite(p);
    }
  }

  /**
   * A server with 16 MiB of push memory, filled with 15 one-MiB blocks while its disk is stalled:
   * flushing has started (the high watermark is half the pool) and cannot free anything yet. A push
   * of 2 MiB is then refused: the pool knows it is full.
   */
  private void fillWhileTheDiskStalls(String pushWait) throws Exception {
    server =
        new ShuffleServer(
            TestServers.conf(
                dir,
                Map.of(
                    ServerOptions.BUFFER_CAPACITY.key(), "16m",
                    ServerOptions.FLUSH_HIGH_WATERMARK.key(), "0.5",
                    ServerOptions.FLUSH_LOW_WATERMARK.key(), "0.25",
                    ServerOptions.PUSH_WAIT.key(), pushWait)),
            disk);
    writer = new ServerTestClient(server);
    writer.registerApp(APP);
    writer.registerShuffle(APP, 0, 32);
    disk.stall();
    for (int p = 0; p < 15; p++) {
      byte[] block = bytes(MIB, p);
      writer.pushRaw(APP, 0, List.of(), List.of(descriptor(p, block)), block);
    }
    assertEquals(15L * MIB, server.pushPool().allocatedBytes());
    waitUntil(() -> server.flushManager().queuedFlushes() > 0, "flushes to start");
    byte[] first = bytes(2 * MIB, 98);
    ExecutionException refused =
        assertThrows(
            ExecutionException.class, () -> pushAsync(19, first).get(30, TimeUnit.SECONDS));
    assertEquals(StatusCode.NO_BUFFER, ServerTestClient.statusOf(refused), refused.toString());
    assertEquals(
        0.0,
        metric("sluice_server_push_waits_total"),
        "the pool had room as far as anyone knew: the push was read");
  }

  @Test
  void aPushThePoolCannotTakeWaitsUnreadAndIsTakenOnceFlushesMakeRoom() throws Exception {
    fillWhileTheDiskStalls("30s");
    byte[] big = bytes(2 * MIB, 99);
    CompletableFuture<Void> push = pushAsync(20, big);
    waitUntil(() -> server.pushPool().roomWaiters() == 1, "the push to wait for room");
    assertEquals(1.0, metric("sluice_server_push_waits_total"));
    assertEquals(
        0,
        server.receiveBudget().reservedBytes(),
        "the waiting push holds no receive memory: its body was not read");

    // The rest of the server serves everyone else meanwhile.
    other = new ServerTestClient(server);
    other.registerApp("app-other");
    other.registerShuffle("app-other", 0, 4);
    byte[] small = bytes(4096, 5);
    assertFalse(push.isDone(), "still waiting: nothing was flushed");

    disk.resume();
    push.get(30, TimeUnit.SECONDS);
    assertEquals(1.0, rejections(), "the push was taken without a refusal");
    assertEquals(0.0, metric("sluice_server_push_wait_expiries_total"));
    assertEquals(15L * MIB + big.length, (long) server.metrics().pushedBytes());
    other.pushRaw("app-other", 0, List.of(), List.of(descriptor(1, small)), small);
  }

  @Test
  void aPushThatWaitsLongerThanTheWaitIsReadAndRefused() throws Exception {
    fillWhileTheDiskStalls("200ms");
    byte[] big = bytes(2 * MIB, 99);
    ExecutionException refused =
        assertThrows(ExecutionException.class, () -> pushAsync(20, big).get(30, TimeUnit.SECONDS));
    assertEquals(StatusCode.NO_BUFFER, ServerTestClient.statusOf(refused), refused.toString());
    assertEquals(1.0, metric("sluice_server_push_waits_total"));
    assertEquals(1.0, metric("sluice_server_push_wait_expiries_total"));
    assertEquals(2.0, rejections());
    assertEquals(0, server.pushPool().roomWaiters());
  }

  @Test
  void withNoWaitAFullPoolRefusesAtOnce() throws Exception {
    fillWhileTheDiskStalls("0s");
    byte[] big = bytes(2 * MIB, 99);
    ExecutionException refused =
        assertThrows(ExecutionException.class, () -> pushAsync(20, big).get(30, TimeUnit.SECONDS));
    assertEquals(StatusCode.NO_BUFFER, ServerTestClient.statusOf(refused), refused.toString());
    assertEquals(0.0, metric("sluice_server_push_waits_total"));
    assertEquals(2.0, rejections());
  }

  @Test
  void pushesForwardedByAnotherServerAreNeverHeldBack() throws Exception {
    fillWhileTheDiskStalls("30s");
    // A server forwarding to this one holds its copies until answered: it is answered at once.
    other =
        new ServerTestClient(
            ServerTestClient.address(server), ReplicaForwarder.CLIENT_ID_PREFIX + "primary");
    byte[] big = bytes(2 * MIB, 99);
    RemoteException refused =
        assertThrows(
            RemoteException.class,
            () -> other.pushRaw(APP, 0, List.of(), List.of(descriptor(20, big)), big));
    assertEquals(StatusCode.NO_BUFFER, refused.status(), refused.getMessage());
    assertEquals(0.0, metric("sluice_server_push_waits_total"));

    CompletableFuture<Void> push = pushAsync(21, big);
    waitUntil(() -> server.pushPool().roomWaiters() == 1, "a writer's push to wait for room");
  }

  private CompletableFuture<Void> pushAsync(int partition, byte[] block) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            writer.pushRaw(APP, 0, List.of(), List.of(descriptor(partition, block)), block);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private double metric(String name) {
    Double value = server.metrics().registry().getSampleValue(name);
    return value == null ? 0 : value;
  }

  private double rejections() {
    Double value =
        server
            .metrics()
            .registry()
            .getSampleValue(
                "sluice_server_push_rejections_total",
                new String[] {"reason"},
                new String[] {StatusCode.NO_BUFFER.name()});
    return value == null ? 0 : value;
  }

  private static void waitUntil(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static BlockDescriptor descriptor(int partition, byte[] bytes) {
    return new BlockDescriptor(
        partition, 7, partition, bytes.length, bytes.length, Crc32c.of(bytes));
  }
}
