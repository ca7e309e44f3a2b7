package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.ConfigException;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.FetchDataRequest;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchIndexResponse;
import io.sluice.common.protocol.message.GetShuffleResultResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
    server =
        new ShuffleServer(
            TestServers.conf(
                dir,
                Map.of(
                    ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "256k",
                    ServerOptions.APP_EXPIRY.key(), "2s")));
    client = new ServerTestClient(server);
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
    Map<Integer, Map<BlockKey, byte[]>> expected = new HashMap<>();
    for (int m = 0; m < 8; m++) {
      int map = m;
      Map<Integer, List<byte[]>> output = new LinkedHashMap<>();
      for (int p = 0; p < partitions; p++) {
        // Partitions 0-7 get big blocks and pass the flush threshold; the rest stay in memory,
        // in one to three blocks per map attempt.
        int blocks = p < 8 ? 1 : 1 + random.nextInt(3);
        for (int b = 0; b < blocks; b++) {
          byte[] bytes = new byte[p < 8 ? 40_000 + random.nextInt(20_000) : random.nextInt(3_000)];
          random.nextBytes(bytes);
          output.computeIfAbsent(p, k -> new ArrayList<>()).add(bytes);
        }
      }
      Map<Integer, List<BlockKey>> keys =
          client.writeMapOutput(APP, 0, partitions, map, 1000 + map, output);
      keys.forEach(
          (p, list) -> {
            for (int i = 0; i < list.size(); i++) {
              assertEquals(new BlockKey(1000 + map, i), list.get(i), "sequences count from 0");
              expected
                  .computeIfAbsent(p, k -> new HashMap<>())
                  .put(list.get(i), output.get(p).get(i));
            }
          });
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
      Map<BlockKey, byte[]> got = client.readPartition(APP, 0, p, attempts);
      assertEquals(expected.get(p).keySet(), got.keySet(), "partition " + p);
      for (Map.Entry<BlockKey, byte[]> e : expected.get(p).entrySet()) {
        assertArrayEquals(e.getValue(), got.get(e.getKey()), "block " + e.getKey());
      }
      int[] counts = client.committedCounts(APP, 0, p, attempts);
      for (int i = 0; i < attempts.length; i++) {
        long attempt = attempts[i];
        assertEquals(
            expected.get(p).keySet().stream().filter(k -> k.taskAttemptId() == attempt).count(),
            counts[i],
            "partition " + p + ", attempt " + attempt);
      }
    }
    // Only the attempts asked for count, in the order asked; one that never committed gets -1.
    assertArrayEquals(
        new int[] {1, GetShuffleResultResponse.NOT_COMMITTED, 1},
        client.committedCounts(APP, 0, 3, 1005, 999, 1000));
    // Reading fewer attempts keeps only theirs.
    assertEquals(Set.of(new BlockKey(1002, 0)), client.readPartition(APP, 0, 5, 1002).keySet());
  }

  @Test
  void unregisterShuffleDeletesItsFilesAtOnce() throws Exception {
    client.registerShuffle(APP, 1, 2);
    byte[] big = new byte[300_000];
    client.writeMapOutput(APP, 1, 2, 0, 1, Map.of(0, List.of(big)));
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
    client.writeMapOutput(APP, 2, 2, 0, 1, Map.of(1, List.of(big)));
    awaitFlushes();
    awaitDataFiles();
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!server.store().applications().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(server.store().applications().isEmpty(), "application should have expired");
    // The expiry takes the application out of the store first, then moves its files away.
    while (!dataFiles().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(dataFiles().isEmpty(), "files left: " + dataFiles());
  }

  @Test
  void badRequestsGetErrorsAndTouchNoFile() throws Exception {
    client.registerShuffle(APP, 3, 4);
    RemoteException unknownApp =
        assertThrows(RemoteException.class, () -> client.registerShuffle("no-such-app", 0, 4));
    assertEquals(StatusCode.UNKNOWN_APPLICATION, unknownApp.status());
    byte[] one = {1};
    RemoteException outOfRange =
        assertThrows(
            RemoteException.class,
            () ->
                client.pushRaw(
                    APP,
                    3,
                    List.of(),
                    List.of(new BlockDescriptor(4, 1, 0, 1, 1, Crc32c.of(one))),
                    one));
    assertEquals(StatusCode.INVALID_REQUEST, outOfRange.status());
    RemoteException pathLike =
        assertThrows(RemoteException.class, () -> client.registerApp("../../etc"));
    assertEquals(StatusCode.INVALID_REQUEST, pathLike.status());
    RemoteException slash = assertThrows(RemoteException.class, () -> client.registerApp("a/b"));
    assertEquals(StatusCode.INVALID_REQUEST, slash.status());
    RemoteException unknownShuffle =
        assertThrows(RemoteException.class, () -> client.committedCounts(APP, 99, 0, 1));
    assertEquals(StatusCode.UNKNOWN_SHUFFLE, unknownShuffle.status());
    // The reader cannot find the commit it counts on, and says why.
    PartitionFetchException unreadable =
        assertThrows(PartitionFetchException.class, () -> client.readPartition(APP, 99, 0, 1));
    assertTrue(unreadable.getMessage().contains("UNKNOWN_SHUFFLE"), unreadable.getMessage());
    RemoteException negativeOffset =
        assertThrows(
            RemoteException.class,
            () ->
                client
                    .send(
                        new FetchDataRequest(TransportClient.nextRequestId(), APP, 3, 0, -5, 10),
                        FetchDataResponse.class)
                    .release());
    assertEquals(StatusCode.INVALID_REQUEST, negativeOffset.status());
    assertTrue(dataFiles().isEmpty());
    assertEquals(0, server.pushPool().allocatedBytes(), "a refused push keeps nothing");
    // The connection and the server keep serving.
    client.registerShuffle(APP, 4, 1);
  }

  @Test
  void readingAPartitionWhoseFilesVanishedAnswersDataNotFound() throws Exception {
    client.registerShuffle(APP, 5, 1);
    byte[] big = new byte[300_000];
    new Random(5).nextBytes(big);
    client.writeMapOutput(APP, 5, 1, 0, 1, Map.of(0, List.of(big)));
    var files = server.store().shuffle(APP, 5).existingPartition(0).files();
    // A flush taken off the queue is not finished: wait until its bytes are readable.
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (files.dataLength() < big.length && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(big.length, files.dataLength());
    // Deleted under the server (an operator, a cleaner, a disk replaced): the server still lists
    // the blocks but cannot read them.
    for (Path f : dataFiles()) {
      Files.delete(f);
    }
    RemoteException index =
        assertThrows(
            RemoteException.class,
            () ->
                client
                    .send(
                        new FetchIndexRequest(TransportClient.nextRequestId(), APP, 5, 0),
                        FetchIndexResponse.class)
                    .release());
    assertEquals(StatusCode.DATA_NOT_FOUND, index.status(), index.getMessage());
    RemoteException data =
        assertThrows(
            RemoteException.class,
            () ->
                client
                    .send(
                        new FetchDataRequest(
                            TransportClient.nextRequestId(), APP, 5, 0, 0, big.length),
                        FetchDataResponse.class)
                    .release());
    assertEquals(StatusCode.DATA_NOT_FOUND, data.status(), data.getMessage());
    // The reader fails the partition rather than returning less than was committed.
    PartitionFetchException e =
        assertThrows(PartitionFetchException.class, () -> client.readPartition(APP, 5, 0, 1));
    assertTrue(e.getMessage().contains("DATA_NOT_FOUND"), e.getMessage());
    // The connection and the server keep serving.
    client.registerShuffle(APP, 6, 1);
  }

  @Test
  void statusAndMetricsAreServedOverHttp() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + server.httpPort();
    HttpResponse<String> metrics =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, metrics.statusCode());
    assertTrue(metrics.body().contains("sluice_server_pushed_bytes_total"));
    assertTrue(metrics.body().contains("jvm_gc_collection_seconds"));
    HttpResponse<String> status =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/status")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, status.statusCode());
    assertTrue(status.body().contains("\"serverId\":\"" + server.serverId() + "\""), status.body());
    assertTrue(status.body().contains("\"healthy\":true"), status.body());
  }

  @Test
  void readyAnswersWhetherTheServerTakesNewShuffles() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI ready = URI.create("http://127.0.0.1:" + server.httpPort() + "/ready");
    HttpResponse<String> before =
        http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, before.statusCode());
    assertEquals("ready\n", before.body());

    assertFalse(server.drain(Duration.ZERO), "an application still holds data here");
    HttpResponse<String> draining =
        http.send(HttpRequest.newBuilder(ready).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(503, draining.statusCode());
    assertEquals("not ready: the server is DECOMMISSIONING\n", draining.body());
  }

  @Test
  void offLoopbackWithoutAuthenticationTheServerRefusesToStart(@TempDir Path other) {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                new ShuffleServer(
                    TestServers.conf(other, Map.of(ServerOptions.BIND_HOST.key(), "0.0.0.0"))));
    assertTrue(
        e.getMessage().startsWith("'server.bind.host' is 0.0.0.0, not a loopback address"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("'auth.insecure.unauthenticated.off.loopback'"), e.getMessage());
  }

  private void awaitFlushes() throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      boolean busy =
          server.disks().disks().stream().anyMatch(d -> d.pendingFlushes() > 0)
              || server.store().applications().stream()
                  .flatMap(a -> a.shuffles().stream())
                  .flatMap(sh -> sh.partitions().stream())
                  // memoryBytes counts a flush taken off the queue until its blocks are on disk.
                  .anyMatch(p -> p.memoryBytes() >= 256 * 1024);
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

  /**
   * The partitions' data and index files where readers find them; a deleted tree waiting in the
   * trash for the background deleter is not among them.
   */
  private List<Path> dataFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    for (String d : List.of("d1", "d2")) {
      Path trash = dir.resolve(d).resolve("sluice+trash");
      // The background deleter empties the trash while this walks, so the walk stays out of it.
      Files.walkFileTree(
          dir.resolve(d),
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path sub, BasicFileAttributes attrs) {
              return sub.equals(trash) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
              String name = f.toString();
              if (attrs.isRegularFile() && (name.endsWith(".data") || name.endsWith(".index"))) {
                files.add(f);
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
              // An expiring application's directory moves to the trash while this walks.
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
              }
              throw e;
            }
          });
    }
    return files;
  }
}
