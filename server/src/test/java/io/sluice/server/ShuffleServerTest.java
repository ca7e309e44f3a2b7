package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.transport.RemoteException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShuffleServerTest {
  private static final String APP = "app-20261122-0001";

  @TempDir Path dir;
  private ShuffleServer server;
  private ServerTestClient client;

  @BeforeEach
  void start() throws Exception {
    server = new ShuffleServer(TestServers.conf(dir, Map.of(
        ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "256k",
        ServerOptions.APP_EXPIRY.key(), "2s")));
    client = new ServerTestClient("127.0.0.1", server.port());
    client.registerApp(APP);
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void pushedBlocksReadBackIdenticalFromMemoryAndDisk() throws Exception {
    int partitions = 24;
    client.registerShuffle(APP, 0, partitions);
    Random random = new Random(42);
    Map<Integer, Map<Long, byte[]>> expected = new HashMap<>();
    long blockId = 0;
    for (int map = 0; map < 8; map++) {
      List<BlockDescriptor> blocks = new ArrayList<>();
      List<byte[]> data = new ArrayList<>();
      Map<Integer, List<Long>> ids = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        // Partitions 0-7 get big blocks and pass the flush threshold; the rest stay in memory.
        int size = p < 8 ? 40_000 + random.nextInt(20_000) : random.nextInt(3_000);
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        long id = blockId++;
        blocks.add(new BlockDescriptor(p, id, 1000 + map, size, size * 2, 0));
        data.add(bytes);
        expected.computeIfAbsent(p, k -> new HashMap<>()).put(id, bytes);
        ids.computeIfAbsent(p, k -> new ArrayList<>()).add(id);
      }
      client.push(APP, 0, blocks, data.toArray(new byte[0][]));
      Map<Integer, long[]> commit = new HashMap<>();
      ids.forEach((p, l) -> commit.put(p, l.stream().mapToLong(Long::longValue).toArray()));
      client.commit(APP, 0, map, 1000 + map, commit);
    }
    awaitFlushes();
    long onDisk = 0;
    for (int p = 0; p < partitions; p++) {
      var files = server.store().shuffle(APP, 0).existingPartition(p).files();
      onDisk += files == null ? 0 : files.dataLength();
    }
    assertTrue(onDisk > 0, "some partitions should have been flushed");
    assertTrue(server.pushPool().allocatedBytes() > 0, "some blocks should still be in memory");

    long[] attempts = {1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007};
    for (int p = 0; p < partitions; p++) {
      Map<Long, byte[]> got = client.readPartition(APP, 0, p);
      assertEquals(expected.get(p).keySet(), got.keySet(), "partition " + p);
      for (Map.Entry<Long, byte[]> e : expected.get(p).entrySet()) {
        assertArrayEquals(e.getValue(), got.get(e.getKey()), "block " + e.getKey());
      }
      assertEquals(expected.get(p).keySet().stream().sorted().toList(),
          java.util.Arrays.stream(client.committed(APP, 0, p, attempts)).boxed().sorted().toList());
    }
    // Only the attempts asked for count.
    assertEquals(1, client.committed(APP, 0, 3, new long[] {1005}).length);
  }

  @Test
  void unregisterShuffleDeletesItsFilesAtOnce() throws Exception {
    client.registerShuffle(APP, 1, 2);
    byte[] big = new byte[300_000];
    client.push(APP, 1, List.of(new BlockDescriptor(0, 1, 1, big.length, big.length, 0)),
        new byte[][] {big});
    awaitFlushes();
    awaitDataFiles();
    client.unregisterShuffle(APP, 1);
    assertTrue(dataFiles().isEmpty(), "files left: " + dataFiles());
    assertEquals(0, server.pushPool().allocatedBytes());
  }

  @Test
  void expiredApplicationIsRemovedWithItsFiles() throws Exception {
    client.registerShuffle(APP, 2, 2);
    byte[] big = new byte[300_000];
    client.push(APP, 2, List.of(new BlockDescriptor(1, 1, 1, big.length, big.length, 0)),
        new byte[][] {big});
    awaitFlushes();
    awaitDataFiles();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!server.store().applications().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(server.store().applications().isEmpty(), "application should have expired");
    assertTrue(dataFiles().isEmpty(), "files left: " + dataFiles());
  }

  @Test
  void badRequestsGetErrorsAndTouchNoFile() throws Exception {
    client.registerShuffle(APP, 3, 4);
    RemoteException unknownApp = assertThrows(RemoteException.class,
        () -> client.registerShuffle("no-such-app", 0, 4));
    assertEquals(StatusCode.UNKNOWN_APPLICATION, unknownApp.status());
    RemoteException outOfRange = assertThrows(RemoteException.class, () -> client.push(APP, 3,
        List.of(new BlockDescriptor(4, 1, 1, 1, 1, 0)), new byte[][] {{1}}));
    assertEquals(StatusCode.INVALID_REQUEST, outOfRange.status());
    RemoteException pathLike = assertThrows(RemoteException.class,
        () -> client.registerApp("../../etc"));
    assertEquals(StatusCode.INVALID_REQUEST, pathLike.status());
    RemoteException slash = assertThrows(RemoteException.class,
        () -> client.registerApp("a/b"));
    assertEquals(StatusCode.INVALID_REQUEST, slash.status());
    RemoteException unknownShuffle = assertThrows(RemoteException.class,
        () -> client.readPartition(APP, 99, 0));
    assertEquals(StatusCode.UNKNOWN_SHUFFLE, unknownShuffle.status());
    RemoteException negativeOffset = assertThrows(RemoteException.class, () -> ServerTestClient
        .await(client.client().request(new io.sluice.common.protocol.message.FetchDataRequest(
            io.sluice.common.transport.TransportClient.nextRequestId(), APP, 3, 0, -5, 10),
            io.sluice.common.protocol.message.FetchDataResponse.class))
        .release());
    assertEquals(StatusCode.INVALID_REQUEST, negativeOffset.status());
    assertTrue(dataFiles().isEmpty());
    // The connection and the server keep serving.
    client.registerShuffle(APP, 4, 1);
  }

  @Test
  void statusAndMetricsAreServedOverHttp() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + server.httpPort();
    HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.body().contains("sluice_server_pushed_bytes_total"));
    assertTrue(metrics.body().contains("jvm_gc_collection_seconds"));
    HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create(base + "/status"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, status.statusCode());
    assertTrue(status.body().contains("\"serverId\":\"" + server.serverId() + "\""),
        status.body());
    assertTrue(status.body().contains("\"healthy\":true"), status.body());
  }

  private void awaitFlushes() throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      boolean busy = server.disks().disks().stream().anyMatch(d -> d.pendingFlushes() > 0)
        || server.store().applications().stream().flatMap(a -> a.shuffles().stream())
            .flatMap(sh -> sh.partitions().stream())
            .anyMatch(p -> p.unflushedBytes() >= 256 * 1024);
      if (!busy) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("flushes did not finish");
  }

  private void awaitDataFiles() throws Exception {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (dataFiles().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertFalse(dataFiles().isEmpty(), "the block should have been flushed");
  }

  private List<Path> dataFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (String d : List.of("d1", "d2")) {
      try (Stream<Path> s = Files.walk(dir.resolve(d))) {
        s.filter(Files::isRegularFile).forEach(files::add);
      }
    }
    return files;
  }
}
