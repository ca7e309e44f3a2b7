package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.BlockKey;
import io.sluice.client.core.push.MapOutputPusher;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.ReplicaChain;
import io.sluice.common.transport.RemoteException;
import io.sluice.server.shuffle.PartitionState;
import io.sluice.server.storage.FaultyFileIo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chain replication between real servers on loopback sockets: a client pushes each block once, to
 * the primary of its partition's chain; the primary forwards it along the chain and acknowledges
 * only once the next server did, so that every server of the chain holds what the client was told
 * is stored, and any of them alone can serve the partition.
 */
class ReplicationTest {
  private static final String APP = "app-replication";
  private static final int PARTITIONS = 6;
  private static final long MIB = 1L << 20;

  @TempDir Path dir;
  private final List<ShuffleServer> servers = new ArrayList<>();
  private final List<ServerTestClient> clients = new ArrayList<>();

  @AfterEach
  void stop() {
    clients.forEach(ServerTestClient::close);
    for (ShuffleServer s : servers) {
      s.close();
    }
  }

  /** Each server's file I/O, which counts the data files opened for direct writes. */
  private final Map<String, FaultyFileIo> fileIo = new ConcurrentHashMap<>();

  private ShuffleServer start(String name, Map<String, String> overrides) throws Exception {
    Map<String, String> conf = new HashMap<>();
    // Partitions with big blocks reach disk; the others stay in memory.
    conf.put(ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "256k");
    conf.put(ServerOptions.REPLICATION_TIMEOUT.key(), "10s");
    // Only the last copy of a chain goes around the page cache, so that the primary's and the
    // replica's flushes differ.
    conf.put(ServerOptions.FLUSH_DIRECT.key(), "last_copies");
    conf.putAll(overrides);
    FaultyFileIo counting = fileIo.computeIfAbsent(name, n -> new FaultyFileIo());
    ShuffleServer server = new ShuffleServer(TestServers.conf(dir.resolve(name), conf), counting);
    servers.add(server);
    return server;
  }

  private ServerTestClient client(ShuffleServer server) throws Exception {
    ServerTestClient client = new ServerTestClient(server);
    clients.add(client);
    client.registerApp(APP);
    client.registerShuffle(APP, 0, PARTITIONS);
    return client;
  }

  /** Blocks of a few map attempts: big ones (flushed) for partitions 0-1, small ones elsewhere. */
  private static Map<Integer, List<byte[]>> mapOutput(Random random) {
    Map<Integer, List<byte[]>> output = new LinkedHashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      int blocks = 1 + random.nextInt(3);
      for (int b = 0; b < blocks; b++) {
        byte[] bytes =
            new byte[p < 2 ? 150_000 + random.nextInt(50_000) : 1 + random.nextInt(5_000)];
        random.nextBytes(bytes);
        output.computeIfAbsent(p, k -> new ArrayList<>()).add(bytes);
      }
    }
    return output;
  }

  /**
   * Pushes three map attempts through {@code primary} along {@code chain}, checking after each
   * attempt's pushes were acknowledged (before its commit) that {@code last} already holds every
   * byte of them. Returns every block by partition.
   */
  private Map<Integer, Map<BlockKey, byte[]>> writeThrough(
      ServerTestClient writer, List<PartitionLocation> chain, ShuffleServer last) throws Exception {
    Random random = new Random(7);
    Map<Integer, Map<BlockKey, byte[]>> expected = new HashMap<>();
    Map<Integer, Long> bytesPerPartition = new HashMap<>();
    for (int map = 0; map < 3; map++) {
      long attempt = 100 + map;
      Map<Integer, List<byte[]>> output = mapOutput(random);
      MapOutputPusher pusher = writer.pusher(APP, 0, chain, attempt, ServerTestClient.PUSH);
      for (Map.Entry<Integer, List<byte[]>> e : output.entrySet()) {
        for (byte[] bytes : e.getValue()) {
          BlockKey key = ServerTestClient.add(pusher, attempt, e.getKey(), bytes);
          expected.computeIfAbsent(e.getKey(), p -> new HashMap<>()).put(key, bytes);
          bytesPerPartition.merge(e.getKey(), (long) bytes.length, Long::sum);
        }
      }
      pusher.finish();
      // Acknowledged: the end of the chain holds the blocks already, in memory or on disk.
      for (Map.Entry<Integer, Long> e : bytesPerPartition.entrySet()) {
        long held = held(last, e.getKey());
        assertTrue(
            held >= e.getValue(),
            "partition "
                + e.getKey()
                + ": the last server of the "
                + "chain holds "
                + held
                + " bytes of the "
                + e.getValue()
                + " acknowledged");
      }
      pusher.commit(map);
    }
    return expected;
  }

  private static void assertReadsBack(
      ServerTestClient reader, ShuffleServer only, Map<Integer, Map<BlockKey, byte[]>> expected)
      throws Exception {
    List<PartitionLocation> alone =
        List.of(new PartitionLocation(0, List.of(ServerTestClient.address(only))));
    for (int p = 0; p < PARTITIONS; p++) {
      Map<BlockKey, byte[]> want = expected.get(p);
      Map<BlockKey, byte[]> got =
          reader.read(APP, 0, p, alone, ServerTestClient.attemptsOf(want.keySet()));
      assertEquals(want.keySet(), got.keySet(), "partition " + p + " from " + only.serverId());
      for (Map.Entry<BlockKey, byte[]> e : want.entrySet()) {
        assertArrayEquals(e.getValue(), got.get(e.getKey()), "block " + e.getKey());
      }
    }
  }

  private static double metric(ShuffleServer server, String name) {
    Double value = server.metrics().registry().getSampleValue(name);
    return value == null ? 0 : value;
  }

  private static long totalBytes(Map<Integer, Map<BlockKey, byte[]>> blocks) {
    return blocks.values().stream()
        .flatMap(m -> m.values().stream())
        .mapToLong(b -> b.length)
        .sum();
  }

  @Test
  void theReplicaAloneServesWhatThePrimaryAcknowledged() throws Exception {
    ShuffleServer primary = start("primary", Map.of());
    ShuffleServer replica = start("replica", Map.of());
    ServerTestClient writer = client(primary);
    ServerTestClient reader = client(replica);
    List<PartitionLocation> chain =
        ServerTestClient.locations(
            PARTITIONS, ServerTestClient.address(primary), ServerTestClient.address(replica));

    Map<Integer, Map<BlockKey, byte[]>> expected = writeThrough(writer, chain, replica);

    // The client pushed each block once, to the primary only: all the replica took came through
    // the primary.
    long bytes = totalBytes(expected);
    assertEquals(bytes, primary.metrics().pushedBytes(), "the primary took every block once");
    assertEquals(bytes, replica.metrics().pushedBytes(), "the replica took every block once");
    assertEquals(
        bytes,
        metric(primary, "sluice_server_replicated_bytes_total"),
        "the primary forwarded every block");
    assertEquals(
        0,
        metric(replica, "sluice_server_replicated_bytes_total"),
        "the end of the chain forwards nothing");
    // Some of it reaches the replica's disk, some stays in its memory.
    waitUntil(
        () -> replica.store().shuffle(APP, 0).existingPartition(0).files() != null,
        "a flush on the replica");
    assertTrue(replica.pushPool().allocatedBytes() > 0);
    // The replica holds the chain's last copy, written around the page cache; the primary not.
    assertTrue(replica.store().shuffle(APP, 0).existingPartition(0).holdsOnlyLastCopies());
    assertFalse(primary.store().shuffle(APP, 0).existingPartition(0).holdsOnlyLastCopies());
    waitUntil(
        () -> primary.store().shuffle(APP, 0).existingPartition(0).files() != null,
        "a flush on the primary");
    assertTrue(
        fileIo.get("replica").directOpens() > 0, "the replica's flushes open files O_DIRECT");
    assertEquals(0, fileIo.get("primary").directOpens(), "the primary's flushes go buffered");

    assertReadsBack(reader, replica, expected);
    assertReadsBack(reader, primary, expected);
  }

  @Test
  void aChainOfTwoReplicasReachesTheLast() throws Exception {
    ShuffleServer primary = start("primary", Map.of());
    ShuffleServer first = start("replica-1", Map.of());
    ShuffleServer second = start("replica-2", Map.of());
    ServerTestClient writer = client(primary);
    client(first);
    ServerTestClient reader = client(second);
    List<PartitionLocation> chain =
        ServerTestClient.locations(
            PARTITIONS,
            ServerTestClient.address(primary),
            ServerTestClient.address(first),
            ServerTestClient.address(second));

    Map<Integer, Map<BlockKey, byte[]>> expected = writeThrough(writer, chain, second);

    long bytes = totalBytes(expected);
    for (ShuffleServer s : List.of(primary, first, second)) {
      assertEquals(bytes, s.metrics().pushedBytes(), s.serverId() + " took every block once");
    }
    assertEquals(bytes, metric(primary, "sluice_server_replicated_bytes_total"));
    assertEquals(bytes, metric(first, "sluice_server_replicated_bytes_total"));
    assertEquals(0, metric(second, "sluice_server_replicated_bytes_total"));
    for (int partition = 0; partition < PARTITIONS; partition++) {
      assertFalse(
          primary.store().shuffle(APP, 0).existingPartition(partition).holdsOnlyLastCopies());
      assertFalse(
          first.store().shuffle(APP, 0).existingPartition(partition).holdsOnlyLastCopies(),
          "a server in the middle of the chain forwards: not the last");
      assertTrue(second.store().shuffle(APP, 0).existingPartition(partition).holdsOnlyLastCopies());
    }
    // Every server of the chain took the commit.
    for (ShuffleServer s : List.of(primary, first, second)) {
      PartitionState p = s.store().shuffle(APP, 0).existingPartition(3);
      assertEquals(
          expected.get(3).keySet().stream().filter(k -> k.taskAttemptId() == 101).count(),
          p.committedCounts(new long[] {101})[0],
          "commit on " + s.serverId());
    }
    assertReadsBack(reader, second, expected);
  }

  @Test
  void onlyChainedPartitionsAreForwardedAndCounted() throws Exception {
    ShuffleServer primary = start("primary", Map.of());
    ShuffleServer replica = start("replica", Map.of());
    ServerTestClient writer = client(primary);
    client(replica);
    byte[] chained = bytes(10_000, 1);
    byte[] local = bytes(20_000, 2);
    writer.pushRaw(
        APP,
        0,
        List.of(new ReplicaChain(3, List.of(ServerTestClient.address(replica)))),
        List.of(descriptor(3, 0, chained), descriptor(5, 0, local)),
        chained,
        local);
    assertEquals(chained.length + local.length, primary.metrics().pushedBytes());
    assertEquals(chained.length, replica.metrics().pushedBytes());
    assertEquals(chained.length, held(replica, 3));
    assertEquals(0, held(replica, 5), "a partition without a chain stays on the primary");
    assertEquals(chained.length + local.length, held(primary, 3) + held(primary, 5));
    assertEquals(
        chained.length,
        metric(primary, "sluice_server_replicated_bytes_total"),
        "only forwarded bytes count as replicated");
  }

  @Test
  void aStoppedReplicaFailsThePushAndThePrimaryKeepsNothing() throws Exception {
    ShuffleServer primary = start("primary", Map.of());
    ShuffleServer replica = start("replica", Map.of());
    ServerTestClient writer = client(primary);
    client(replica);
    ServerAddress replicaAddress = ServerTestClient.address(replica);
    replica.close();
    servers.remove(replica);

    // Blocks of the page arena (32 KiB and more), whose chunks go back with their last block.
    byte[] a = bytes(300_000, 1);
    byte[] b = bytes(400_000, 2);
    RemoteException refused =
        assertThrows(
            RemoteException.class,
            () ->
                writer.pushRaw(
                    APP,
                    0,
                    List.of(new ReplicaChain(1, List.of(replicaAddress))),
                    List.of(descriptor(1, 0, a), descriptor(1, 1, b)),
                    a,
                    b));
    assertEquals(StatusCode.REPLICA_UNAVAILABLE, refused.status(), refused.getMessage());
    assertTrue(!refused.isRetriable());
    assertNothingKept(primary);

    // Through the push client: the attempt fails (these locations cannot move), nothing is kept.
    List<PartitionLocation> chain =
        ServerTestClient.locations(PARTITIONS, ServerTestClient.address(primary), replicaAddress);
    IOException failed =
        assertThrows(
            IOException.class,
            () ->
                writer.writeMapOutput(APP, 0, chain, 0, 7, Map.of(2, List.of(bytes(300_000, 3)))));
    assertEquals(
        StatusCode.REPLICA_UNAVAILABLE, ServerTestClient.statusOf(failed), failed.toString());
    assertNothingKept(primary);
  }

  @Test
  void aFullReplicaMakesThePrimaryAnswerNoBufferAndKeepNothing() throws Exception {
    ShuffleServer primary = start("primary", Map.of());
    // The smallest pool; nothing is flushed below 15.2 of its 16 MiB (the highest watermark; one
    // partition's threshold far away).
    ShuffleServer replica =
        start(
            "replica",
            Map.of(
                ServerOptions.BUFFER_CAPACITY.key(), "16m",
                ServerOptions.FLUSH_HIGH_WATERMARK.key(), "0.95",
                ServerOptions.FLUSH_LOW_WATERMARK.key(), "0.5",
                ServerOptions.PARTITION_FLUSH_THRESHOLD.key(), "32m"));
    ServerTestClient writer = client(primary);
    ServerTestClient filler = client(replica);
    filler.registerShuffle(APP, 1, 16);
    // Fifteen of the replica's sixteen MiB: one whole chunk per block, one block per partition.
    for (int p = 0; p < 15; p++) {
      byte[] chunk = bytes((int) MIB, p);
      filler.pushRaw(APP, 1, List.of(), List.of(descriptor(p, 0, chunk)), chunk);
    }
    assertEquals(15 * MIB, replica.pushPool().usedBytes());
    ServerAddress replicaAddress = ServerTestClient.address(replica);

    // A 2 MiB block can never fit there now, though it could once the replica flushes.
    byte[] big = bytes((int) (2 * MIB), 99);
    List<ReplicaChain> chains = List.of(new ReplicaChain(4, List.of(replicaAddress)));
    RemoteException refused =
        assertThrows(
            RemoteException.class,
            () -> writer.pushRaw(APP, 0, chains, List.of(descriptor(4, 0, big)), big));
    assertEquals(StatusCode.NO_BUFFER, refused.status(), refused.getMessage());
    assertTrue(refused.isRetriable(), "the client backs off and pushes again");
    assertNothingKept(primary);
    assertEquals(15 * MIB, replica.pushPool().allocatedBytes(), "the replica took nothing");

    // Once the replica has room, the same push goes through to both.
    filler.unregisterShuffle(APP, 1);
    writer.pushRaw(APP, 0, chains, List.of(descriptor(4, 0, big)), big);
    assertEquals(big.length, held(primary, 4));
    assertEquals(big.length, held(replica, 4));
  }

  /** Bytes of a partition a server holds, in memory or on disk (counted twice while flushing). */
  private static long held(ShuffleServer server, int partition) {
    PartitionState p = server.store().shuffle(APP, 0).existingPartition(partition);
    if (p == null) {
      return 0;
    }
    // Memory first: a block leaves memory only after it is on disk, so none is missed.
    long memory = p.memoryBytes();
    var files = p.files();
    return memory + (files == null ? 0 : files.dataLength());
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static void assertNothingKept(ShuffleServer primary) {
    for (int p = 0; p < PARTITIONS; p++) {
      assertEquals(0, held(primary, p), "partition " + p);
    }
    assertEquals(0, primary.metrics().pushedBytes());
    assertEquals(0, primary.pushPool().allocatedBytes(), "the primary freed its copies");
    assertEquals(0, primary.pushPool().usedBytes(), "the primary's pool is back to empty");
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static BlockDescriptor descriptor(int partition, int sequence, byte[] bytes) {
    return new BlockDescriptor(
        partition, 7, sequence, bytes.length, bytes.length, Crc32c.of(bytes));
  }
}
