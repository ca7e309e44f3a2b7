package io.sluice.coordinator.assignment;

import static io.sluice.coordinator.TestServers.GIB;
import static io.sluice.coordinator.TestServers.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.coordinator.TestServers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BalanceTest {

  @Test
  void partitionsLandInProportionToFreeMemory() {
    AssignerFixture f = new AssignerFixture(100);
    f.heartbeat(
        status("a", "host-a", GIB), status("b", "host-b", 2 * GIB), status("c", "host-c", 3 * GIB));

    Map<String, Integer> primaries = AssignerFixture.primariesById(f.assign(600, 1));

    assertEquals(Map.of("a", 100, "b", 200, "c", 300), primaries);
  }

  @Test
  void manyUnequalServersGetTheirShareWithinOnePartition() {
    AssignerFixture f = new AssignerFixture(1000);
    Random random = new Random(42);
    long[] free = new long[40];
    long total = 0;
    for (int i = 0; i < free.length; i++) {
      free[i] = (1 + random.nextInt(16)) * GIB / 2;
      total += free[i];
      f.heartbeat(status("s" + i, "host-" + i, free[i]));
    }
    int partitions = 10_000;

    Map<String, Integer> primaries = AssignerFixture.primariesById(f.assign(partitions, 1));

    for (int i = 0; i < free.length; i++) {
      double exact = (double) partitions * free[i] / total;
      int got = primaries.getOrDefault("s" + i, 0);
      assertTrue(Math.abs(got - exact) < 1, "server s" + i + " got " + got + ", share " + exact);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void replicasFollowTheProportionsOnOtherHosts(int copies) {
    AssignerFixture f = new AssignerFixture(100);
    // Eight servers on four hosts, unequal memory; no host weighs more than a third, so three
    // copies on three different hosts can keep the proportions.
    long[] free = {GIB, 2 * GIB, 3 * GIB, 4 * GIB, 2 * GIB, GIB, 2 * GIB, GIB};
    long total = 0;
    for (int i = 0; i < free.length; i++) {
      f.heartbeat(status("s" + i, "host-" + (i % 4), free[i]));
      total += free[i];
    }
    int partitions = 3000;

    Assignment assignment = f.assign(partitions, copies);

    assertReplicasOnDistinctHosts(assignment, copies);
    Map<String, Integer> all = AssignerFixture.copiesById(assignment);
    for (int i = 0; i < free.length; i++) {
      double exact = (double) partitions * copies * free[i] / total;
      int got = all.getOrDefault("s" + i, 0);
      assertTrue(
          Math.abs(got - exact) <= 0.05 * exact,
          "server s" + i + " holds " + got + " copies, its share is " + exact);
    }
  }

  @Test
  void replicasLeaveAHeavyHostEvenWhenProportionsCannotHold() {
    AssignerFixture f = new AssignerFixture(100);
    // Host a has 90% of the memory; each partition still needs a copy on host b.
    f.heartbeat(
        status("a1", "host-a", 9 * GIB),
        status("a2", "host-a", 9 * GIB),
        status("b1", "host-b", 2 * GIB));

    Assignment assignment = f.assign(1000, 2);

    assertReplicasOnDistinctHosts(assignment, 2);
  }

  @Test
  void copiesStayOffOneNodeWhateverNamesItsServersGoBy() {
    AssignerFixture f = new AssignerFixture(100);
    // Four pods with names of their own on two nodes, as on Kubernetes: by names alone every
    // server is a host of its own, and both copies of a partition could share a node.
    f.registry.heartbeat(status("pod-0", "pod-0.sluice", 4 * GIB), "node-1");
    f.registry.heartbeat(status("pod-1", "pod-1.sluice", 4 * GIB), "node-1");
    f.registry.heartbeat(status("pod-2", "pod-2.sluice", GIB), "node-2");
    f.registry.heartbeat(status("pod-3", "pod-3.sluice", GIB), "node-2");
    Map<String, String> nodeOf =
        Map.of("pod-0", "node-1", "pod-1", "node-1", "pod-2", "node-2", "pod-3", "node-2");

    Assignment assignment = f.assign(1000, 2);

    for (int p = 0; p < assignment.partitionCount(); p++) {
      String first = nodeOf.get(AssignerFixture.server(assignment, p, 0).serverId());
      String second = nodeOf.get(AssignerFixture.server(assignment, p, 1).serverId());
      assertTrue(!first.equals(second), "partition " + p + " has both copies on " + first);
    }
    assertEquals("node-1", f.registry.get("pod-0").node());
  }

  @Test
  void replicasShareAHostOnlyWhenNoOtherHostExists() {
    AssignerFixture f = new AssignerFixture(100);
    f.heartbeat(
        status("a1", "host-a", GIB),
        status("a2", "host-a", 2 * GIB),
        status("a3", "host-a", 3 * GIB));

    Assignment assignment = f.assign(500, 3);

    for (int[] servers : AssignerFixture.chains(assignment)) {
      assertEquals(
          3,
          Set.of(servers[0], servers[1], servers[2]).size(),
          "copies of a partition on one server");
    }
  }

  @Test
  void theChoiceReachesAnotherHostWhenTheHeaviestServersShareOne() {
    // At most two servers per shuffle; the two heaviest sit on host a.
    AssignerFixture f = new AssignerFixture(2);
    f.heartbeat(
        status("a1", "host-a", 8 * GIB),
        status("a2", "host-a", 7 * GIB),
        status("b1", "host-b", GIB));

    Assignment assignment = f.assign(100, 2);

    assertReplicasOnDistinctHosts(assignment, 2);
    Set<String> used = new HashSet<>();
    assignment.servers().forEach(s -> used.add(s.serverId()));
    assertEquals(Set.of("a1", "b1"), used);
  }

  @Test
  void aShuffleSpreadsOverAtMostTheConfiguredNumberOfServersTheHeaviestFirst() {
    AssignerFixture f = new AssignerFixture(5);
    for (int i = 0; i < 20; i++) {
      f.heartbeat(status(String.format("s%02d", i), "host-" + i, (i + 1) * GIB / 4));
    }

    Assignment assignment = f.assign(1000, 1);

    Set<String> used = new HashSet<>();
    assignment.servers().forEach(s -> used.add(s.serverId()));
    assertEquals(Set.of("s15", "s16", "s17", "s18", "s19"), used);
  }

  @Test
  void partitionsHeldCountAgainstAServer() {
    AssignerFixture f = new AssignerFixture(100, 1000);
    // Same free memory; b holds 1000 partitions, so it weighs half as much.
    f.heartbeat(
        status("a", "host-a", 4 * GIB),
        TestServers.builder("b", "host-b").free(4 * GIB).partitionsHeld(1000).build());

    Map<String, Integer> primaries = AssignerFixture.primariesById(f.assign(300, 1));

    assertEquals(Map.of("a", 200, "b", 100), primaries);
  }

  @Test
  void recentAssignmentsCountAsLoadUntilHeartbeatsReportThem() {
    // Four equal servers, two per shuffle: the second shuffle goes to the two the first left alone.
    AssignerFixture f = new AssignerFixture(2, 100);
    for (String id : List.of("s1", "s2", "s3", "s4")) {
      f.heartbeat(status(id, "host-" + id, 4 * GIB));
    }

    Set<String> first = ids(f.assign(100, 1));
    Set<String> second = ids(f.assign(100, 1));

    assertEquals(Set.of("s1", "s2"), first);
    assertEquals(Set.of("s3", "s4"), second);

    // s1 and s2 report their 50 partitions each: they weigh what s3 and s4 (50 pending) do.
    f.heartbeat(
        TestServers.builder("s1", "host-s1").free(4 * GIB).partitionsHeld(50).build(),
        TestServers.builder("s2", "host-s2").free(4 * GIB).partitionsHeld(50).build());
    Set<String> third = ids(f.assign(100, 1));
    assertEquals(Set.of("s1", "s2"), third);
    // The third shuffle's 50 each are pending on s1 and s2 now; s3 and s4 still have 50 pending.
    assertEquals(
        Map.of("s1", 50L, "s2", 50L, "s3", 50L, "s4", 50L), f.assigner.pendingPartitions());

    // Pending partitions expire when heartbeats never report them.
    f.clock.advance(java.time.Duration.ofSeconds(60));
    assertEquals(Map.of(), f.assigner.pendingPartitions());
  }

  @Test
  void expiredPendingPartitionsStopCountingAcrossARebuild() {
    AssignerFixture f = new AssignerFixture(1, 100);
    f.heartbeat(status("s1", "host-1", 8 * GIB), status("s2", "host-2", 4 * GIB));
    assertEquals(Set.of("s1"), ids(f.assign(100, 1)));

    // s1's pending partitions expire unreported while its memory fills; the heartbeats rebuild the
    // candidate list. s1 must count as holding nothing pending, not less than nothing.
    f.clock.advance(java.time.Duration.ofSeconds(60));
    f.heartbeat(status("s1", "host-1", 2 * GIB), status("s2", "host-2", 4 * GIB));

    assertEquals(Set.of("s2"), ids(f.assign(10, 1)));
    assertEquals(Map.of("s2", 10L), f.assigner.pendingPartitions());
  }

  @Test
  void theAnswerDependsOnTheRegistryContentNotOnTheOrderHeartbeatsArrived() {
    List<ServerStatus> statuses = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      statuses.add(status("s" + i, "host-" + (i % 7), (1 + i % 4) * GIB));
    }
    AssignerFixture inOrder = new AssignerFixture(10);
    statuses.forEach(inOrder::heartbeat);
    List<ServerStatus> shuffled = new ArrayList<>(statuses);
    Collections.shuffle(shuffled, new Random(7));
    AssignerFixture outOfOrder = new AssignerFixture(10);
    shuffled.forEach(outOfOrder::heartbeat);

    Assignment a = inOrder.assign(777, 2);
    Assignment b = outOfOrder.assign(777, 2);

    assertEquals(a.servers(), b.servers());
    assertEquals(a.chains(), b.chains());
  }

  @Test
  void eachServerHoldsOneRangeOfNeighbouringPartitions() {
    AssignerFixture f = new AssignerFixture(100);
    f.heartbeat(
        status("a", "host-a", GIB), status("b", "host-b", 2 * GIB), status("c", "host-c", GIB));

    Assignment assignment = f.assign(1000, 1);

    Set<Integer> finished = new HashSet<>();
    int previous = -1;
    for (int[] servers : AssignerFixture.chains(assignment)) {
      if (servers[0] != previous) {
        assertTrue(finished.add(previous), "server " + servers[0] + " holds two ranges");
        previous = servers[0];
      }
    }
  }

  @Test
  void everyServerIsPrimaryForItsShareOfWhatItHolds() {
    AssignerFixture f = new AssignerFixture(100);
    for (int i = 0; i < 6; i++) {
      f.heartbeat(status("s" + i, "host-" + i, (1 + i) * GIB));
    }

    Assignment assignment = f.assign(2000, 2);

    Map<String, Integer> primaries = AssignerFixture.primariesById(assignment);
    Map<String, Integer> copies = AssignerFixture.copiesById(assignment);
    for (Map.Entry<String, Integer> e : copies.entrySet()) {
      double half = e.getValue() / 2.0;
      int primary = primaries.getOrDefault(e.getKey(), 0);
      assertTrue(
          Math.abs(primary - half) <= 1,
          e.getKey() + " is primary for " + primary + " of " + e.getValue() + " copies");
    }
  }

  @Test
  void tagsRestrictTheChoice() {
    AssignerFixture f = new AssignerFixture(100);
    f.heartbeat(
        TestServers.builder("ssd1", "h1").free(GIB).tags("ssd", "rack1").build(),
        TestServers.builder("ssd2", "h2").free(GIB).tags("ssd").build(),
        TestServers.builder("hdd1", "h3").free(8 * GIB).tags("hdd").build());

    Assignment assignment = f.assigner.assign(10, 1, List.of("ssd"), Set.of());

    assertEquals(Set.of("ssd1", "ssd2"), ids(assignment));
    assertEquals(Set.of("ssd1"), ids(f.assigner.assign(10, 1, List.of("ssd", "rack1"), Set.of())));
  }

  @Test
  void aFullServerGetsNothingWhileOthersHaveRoom() {
    AssignerFixture f = new AssignerFixture(100);
    f.heartbeat(status("full", "h1", 0), status("roomy", "h2", GIB));

    assertEquals(Set.of("roomy"), ids(f.assign(50, 1)));
  }

  private static Set<String> ids(Assignment assignment) {
    Set<String> ids = new HashSet<>();
    for (ServerAddress server : assignment.servers()) {
      ids.add(server.serverId());
    }
    return ids;
  }

  private static void assertReplicasOnDistinctHosts(Assignment assignment, int copies) {
    for (int p = 0; p < assignment.partitionCount(); p++) {
      Set<String> hosts = new HashSet<>();
      for (int c = 0; c < copies; c++) {
        hosts.add(AssignerFixture.server(assignment, p, c).host());
      }
      assertEquals(copies, hosts.size(), "partition " + p + " has copies on " + hosts);
    }
  }
}
