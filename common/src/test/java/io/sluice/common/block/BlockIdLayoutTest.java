package io.sluice.common.block;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class BlockIdLayoutTest {

  static Stream<BlockIdLayout> layouts() {
    return Stream.of(
        BlockIdLayout.DEFAULT,
        new BlockIdLayout(18, 24, 21),
        new BlockIdLayout(1, 1, 61),
        new BlockIdLayout(30, 30, 3),
        new BlockIdLayout(30, 1, 32),
        new BlockIdLayout(1, 30, 32),
        new BlockIdLayout(16, 16, 31));
  }

  @Test
  void defaultLayoutLimits() {
    BlockIdLayout layout = BlockIdLayout.DEFAULT;
    assertEquals(20, layout.sequenceWidth());
    assertEquals(24, layout.partitionWidth());
    assertEquals(19, layout.taskAttemptWidth());
    assertEquals(1_048_575, layout.maxSequence());
    assertEquals(16_777_216, layout.maxPartitions());
  }

  @ParameterizedTest
  @MethodSource("layouts")
  void fieldsRoundTripAtTheirBoundaries(BlockIdLayout layout) {
    long attemptMask = (1L << layout.taskAttemptWidth()) - 1;
    int maxSequence = layout.maxSequence();
    int maxPartitionId = layout.maxPartitions() - 1;
    List<Integer> sequences = List.of(0, 1, maxSequence / 2, maxSequence - 1, maxSequence);
    List<Integer> partitions = List.of(0, 1, maxPartitionId / 2, maxPartitionId - 1, maxPartitionId);
    List<Long> attempts = List.of(0L, 1L, attemptMask - 1, attemptMask, attemptMask + 1,
        (1L << 40) + 7, Long.MAX_VALUE);
    for (int sequence : sequences) {
      for (int partition : partitions) {
        for (long attempt : attempts) {
          long id = layout.blockId(sequence, partition, attempt);
          assertTrue(id >= 0, "ids are non-negative");
          assertEquals(sequence, layout.sequence(id));
          assertEquals(partition, layout.partitionId(id));
          assertEquals(attempt & attemptMask, layout.taskAttemptBits(id));
          assertTrue(layout.matchesTaskAttempt(id, attempt));
        }
      }
    }
    long top = layout.blockId(maxSequence, maxPartitionId, Long.MAX_VALUE);
    assertEquals(Long.MAX_VALUE, top, "the largest fields fill all 63 bits");
    assertEquals(0L, layout.blockId(0, 0, 0));
  }

  @ParameterizedTest
  @MethodSource("layouts")
  void randomFieldsRoundTripAndDistinctFieldsGiveDistinctIds(BlockIdLayout layout) {
    Random random = new Random(42);
    long attemptMask = (1L << layout.taskAttemptWidth()) - 1;
    Set<Long> ids = new HashSet<>();
    Set<List<Long>> fields = new HashSet<>();
    for (int i = 0; i < 20_000; i++) {
      int sequence = random.nextInt(layout.maxSequence() + 1);
      int partition = random.nextInt(layout.maxPartitions());
      long attempt = random.nextLong() & Long.MAX_VALUE;
      long id = layout.blockId(sequence, partition, attempt);
      assertEquals(sequence, layout.sequence(id));
      assertEquals(partition, layout.partitionId(id));
      assertEquals(attempt & attemptMask, layout.taskAttemptBits(id));
      ids.add(id);
      fields.add(List.of((long) sequence, (long) partition, attempt & attemptMask));
    }
    assertEquals(fields.size(), ids.size(), "one id per distinct (sequence, partition, attempt bits)");
  }

  @Test
  void taskAttemptIdsBeyondTheFieldKeepTheirLowBits() {
    BlockIdLayout layout = BlockIdLayout.DEFAULT;
    long window = 1L << layout.taskAttemptWidth();
    long attempt = 3 * window + 12_345;
    long id = layout.blockId(2, 7, attempt);
    assertEquals(12_345, layout.taskAttemptBits(id));
    assertEquals(id, layout.blockId(2, 7, attempt + window),
        "attempts a whole window apart share an id; the full taskAttemptId beside it tells them apart");
    assertTrue(layout.matchesTaskAttempt(id, attempt));
    assertFalse(layout.matchesTaskAttempt(id, attempt + 1));
    assertNotEquals(id, layout.blockId(2, 7, attempt + 1));
  }

  @Test
  void sequenceOverflowNamesTheLimitTheValueAndTheRemedy() {
    BlockIdLayout layout = BlockIdLayout.DEFAULT;
    long ok = layout.blockId(1_048_575, 7, 99);
    assertEquals(1_048_575, layout.sequence(ok));
    BlockIdOverflowException e =
        assertThrows(BlockIdOverflowException.class, () -> layout.blockId(1_048_576, 7, 99));
    String message = e.getMessage();
    assertTrue(message.contains("map task attempt 99"), message);
    assertTrue(message.contains("block sequence 1048576 for partition 7"), message);
    assertTrue(message.contains("0..1048575 (20 sequence bits)"), message);
    assertTrue(message.contains("at most 1048576 blocks per partition"), message);
    assertTrue(message.contains("spark.sluice.block.size"), message);
    assertTrue(message.contains("spark.sluice.blockId.sequenceBits"), message);
  }

  @Test
  void partitionOverflowNamesTheLimitTheValueAndTheRemedy() {
    BlockIdLayout layout = new BlockIdLayout(18, 24, 21);
    layout.blockId(0, 16_777_215, 1);
    BlockIdOverflowException e =
        assertThrows(BlockIdOverflowException.class, () -> layout.blockId(0, 16_777_216, 1));
    assertTrue(e.getMessage().contains("partition id 16777216"), e.getMessage());
    assertTrue(e.getMessage().contains("at most 16777216 partitions (24 partition bits)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("spark.sluice.blockId.partitionBits"), e.getMessage());
  }

  @Test
  void checkPartitionsAcceptsUpToTheLimitAndRejectsBeyond() {
    BlockIdLayout layout = new BlockIdLayout(20, 18, 25);
    layout.checkPartitions(0);
    layout.checkPartitions(200_000);
    layout.checkPartitions(262_144);
    BlockIdOverflowException e =
        assertThrows(BlockIdOverflowException.class, () -> layout.checkPartitions(262_145));
    assertTrue(e.getMessage().contains("a shuffle of 262145 partitions"), e.getMessage());
    assertTrue(e.getMessage().contains("at most 262144 partitions (18 partition bits)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("Use fewer partitions"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> layout.checkPartitions(-1));
  }

  @Test
  void negativeFieldsAreRejectedAsInvalidNotAsOverflow() {
    BlockIdLayout layout = BlockIdLayout.DEFAULT;
    for (Runnable call : List.<Runnable>of(
        () -> layout.blockId(-1, 0, 0),
        () -> layout.blockId(0, -1, 0),
        () -> layout.blockId(0, 0, -1),
        () -> layout.sequence(-1),
        () -> layout.partitionId(Long.MIN_VALUE),
        () -> layout.taskAttemptBits(-5))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
      assertFalse(e instanceof BlockIdOverflowException, e.getMessage());
    }
  }

  @ParameterizedTest
  @CsvSource({
      "18, 24, 20",
      "18, 24, 22",
      "0, 24, 39",
      "24, 0, 39",
      "24, 39, 0",
      "-1, 32, 32",
      "31, 16, 16",
      "16, 31, 16",
      "1, 1, 2147483647",
      "2147483647, 1, 1"})
  void invalidLayoutsAreRejected(int sequenceBits, int partitionBits, int taskAttemptBits) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new BlockIdLayout(sequenceBits, partitionBits, taskAttemptBits));
    assertTrue(e.getMessage().contains("sum to 63"), e.getMessage());
    assertTrue(e.getMessage().contains("sequenceBits=" + sequenceBits), e.getMessage());
  }

  @Test
  void layoutsWithTheSameWidthsAreEqual() {
    assertEquals(BlockIdLayout.DEFAULT, new BlockIdLayout(20, 24, 19));
    assertEquals(BlockIdLayout.DEFAULT.hashCode(), new BlockIdLayout(20, 24, 19).hashCode());
    assertNotEquals(BlockIdLayout.DEFAULT, new BlockIdLayout(18, 24, 21));
    assertEquals("BlockIdLayout[sequenceBits=20, partitionBits=24, taskAttemptBits=19]",
        BlockIdLayout.DEFAULT.toString());
  }

  @Test
  void describeShowsTheFields() {
    BlockIdLayout layout = BlockIdLayout.DEFAULT;
    long id = layout.blockId(3, 7, 1_000_000);
    assertEquals("block " + id + " (sequence 3, partition 7, task attempt bits "
        + (1_000_000 & ((1 << 19) - 1)) + ")", layout.describe(id));
    assertEquals("block -1 (invalid: negative)", layout.describe(-1));
  }
}
