package io.sluice.client.spark.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.client.core.read.PartitionFetchException;
import io.sluice.client.spark.MapOutputLocation;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.spark.FetchFailed;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.Test;
import scala.Option;

class CountedMapsTest {
  static final BlockManagerId EXEC_1 = BlockManagerId.apply("1", "host-a", 7001, Option.empty());
  static final BlockManagerId EXEC_2 = BlockManagerId.apply("2", "host-b", 7002, Option.empty());

  private static CountedMaps maps() {
    return new CountedMaps.Builder(9)
        .add(EXEC_1, 500, 0, 4, 100)
        .add(EXEC_1, 500, 0, 2, 10)
        .add(EXEC_1, 500, 0, 3, 0)
        .add(EXEC_2, 612, 1, 4, 7)
        .add(EXEC_2, 612, 1, 3, 0)
        .build();
  }

  @Test
  void listsPartitionsWithBytesAndTheirCountedAttempts() {
    CountedMaps maps = maps();
    assertArrayEquals(new int[] {2, 4}, maps.partitions(), "partition 3 has no bytes: skipped");
    assertArrayEquals(new long[] {500, 612}, maps.attempts(4));
    assertArrayEquals(new long[] {500}, maps.attempts(2));
    assertArrayEquals(new long[0], maps.attempts(3));
  }

  @Test
  void theHandlesLocationsSufficeOnlyWhenEveryCountedOutputWasWrittenToThemAlone() {
    BlockManagerId first = MapOutputLocation.ofMapOutput(9, "host-a", true, List.of());
    BlockManagerId moved = MapOutputLocation.ofMapOutput(9, "host-b", false, List.of());
    assertEquals("sluice-shuffle-9", first.executorId());
    assertEquals("host-a", first.host());
    assertEquals("sluice-shuffle-9", moved.executorId());

    assertTrue(
        new CountedMaps.Builder(9)
            .add(first, 500, 0, 4, 100)
            .add(first, 612, 1, 4, 7)
            .add(moved, 700, 2, 4, 0)
            .build()
            .atFirstLocationsOnly(),
        "an empty output is not read");
    assertFalse(
        new CountedMaps.Builder(9)
            .add(first, 500, 0, 4, 100)
            .add(moved, 612, 1, 2, 7)
            .build()
            .atFirstLocationsOnly());
    assertFalse(maps().atFirstLocationsOnly(), "an unmarked location is not trusted");
  }

  /** A reduce task reads last the servers any writer of what it reads had found slow. */
  @Test
  void theServersFoundSlowByTheWritersOfCountedOutputsAreThoseTheirLocationsName() {
    BlockManagerId firstSlow =
        MapOutputLocation.ofMapOutput(9, "host-a", true, List.of("server-2", "server-0"));
    BlockManagerId movedSlow = MapOutputLocation.ofMapOutput(9, "host-b", false, List.of("s-5"));
    BlockManagerId odd = MapOutputLocation.ofMapOutput(9, "host-b", false, List.of("a;b", "c,d"));
    assertEquals(
        "sluice-first-locations;sluice-slow=server-0,server-2", firstSlow.topologyInfo().get());
    assertEquals(Option.empty(), odd.topologyInfo(), "ids that would break the field apart");

    CountedMaps maps =
        new CountedMaps.Builder(9)
            .add(firstSlow, 500, 0, 4, 100)
            .add(EXEC_1, 612, 1, 4, 7)
            .add(movedSlow, 700, 2, 4, 0)
            .build();

    assertEquals(Set.of("server-0", "server-2"), maps.slowServers(), "an empty output is not read");
    assertFalse(maps.atFirstLocationsOnly());
    assertTrue(
        new CountedMaps.Builder(9).add(firstSlow, 500, 0, 4, 100).build().atFirstLocationsOnly());
    assertEquals(Set.of(), maps().slowServers());
  }

  @Test
  void aFetchFailureNamesTheShufflesSyntheticLocationAndNoMap() {
    IOException cause = new IOException("boom");
    FetchFailedException e = maps().fetchFailed(4, "block 88 is missing", cause);

    FetchFailed reason = (FetchFailed) e.toTaskFailedReason();
    // Spark then unregisters every map output "on" that location: the whole shuffle, once.
    assertEquals(MapOutputLocation.ofLostShuffle(9), reason.bmAddress());
    assertEquals("sluice-shuffle-9", reason.bmAddress().executorId());
    assertEquals(9, reason.shuffleId());
    assertEquals(-1, reason.mapId());
    assertEquals(-1, reason.mapIndex());
    assertEquals(4, reason.reduceId());
    assertEquals("block 88 is missing", e.getMessage());
    assertSame(cause, e.getCause());
  }

  @Test
  void aPartitionFetchExceptionBecomesTheSameFailure() {
    PartitionFetchException cause = new PartitionFetchException(4, "server lost", null);
    FetchFailed reason = (FetchFailed) maps().fetchFailed(cause).toTaskFailedReason();
    assertEquals(MapOutputLocation.ofLostShuffle(9), reason.bmAddress());
    assertEquals(-1, reason.mapIndex());
    assertEquals(4, reason.reduceId());
  }
}
