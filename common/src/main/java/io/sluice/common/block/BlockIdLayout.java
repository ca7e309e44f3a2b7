package io.sluice.common.block;

/**
 * How a block id packs a block's sequence number, partition id and the low bits of its task attempt id
 * into a non-negative int64. From the most significant bit down:
 *
 * <pre>
 *   bit 63 | sequenceBits          | partitionBits | taskAttemptBits
 *   0      | sequence in the stream | partition id  | taskAttemptId mod 2^taskAttemptBits
 * </pre>
 *
 * <p>A stream is what one map task attempt writes for one partition, cut into blocks numbered 0, 1,
 * 2, ... So a map attempt's blocks for a partition are exactly the sequences below its block count.
 *
 * <p>Spark's taskAttemptId grows through an application's whole life and outgrows any fixed field, so
 * the id keeps only its low bits, and every block carries the full int64 taskAttemptId beside its id
 * (on the wire and in the server's index). The unique key of a block is the pair
 * (taskAttemptId, blockId); whatever filters, deduplicates or counts blocks keys on that pair, never on
 * the block id alone. The low bits let a reader check that an id and its taskAttemptId belong
 * together ({@link #matchesTaskAttempt}), and keep the ids of different attempts apart wherever the
 * attempts in play span fewer than 2^taskAttemptBits ids. Sequence and partition never wrap: a value
 * that does not fit throws {@link BlockIdOverflowException}.
 *
 * <p>The writers and readers of one application share one layout (they read the same SparkConf);
 * servers treat block ids as opaque. Instances are immutable and thread-safe.
 */
public final class BlockIdLayout {
  /** Bits available to the three fields: all but the sign bit, so every id is non-negative. */
  public static final int TOTAL_BITS = 63;

  /**
   * The widest sequence or partition field: both are Java ints, and so are the counts of blocks and
   * partitions they allow (2^30).
   */
  public static final int MAX_INT_FIELD_BITS = 30;

  /**
   * 20 sequence bits: 1,048,576 blocks per map task and partition (64 GiB of 64 KiB blocks); 24
   * partition bits: 16,777,216 partitions, the limit of Spark's own serialized shuffle; 19 task
   * attempt bits: ids of attempts less than 524,288 apart never share low bits.
   */
  public static final BlockIdLayout DEFAULT = new BlockIdLayout(20, 24, 19);

  // The client settings that move these limits, named in error messages. They are defined by the
  // client's option class; common cannot depend on it.
  private static final String BLOCK_SIZE_KEY = "spark.sluice.block.size";
  private static final String SEQUENCE_BITS_KEY = "spark.sluice.blockId.sequenceBits";
  private static final String PARTITION_BITS_KEY = "spark.sluice.blockId.partitionBits";
  private static final String TASK_ATTEMPT_BITS_KEY = "spark.sluice.blockId.taskAttemptBits";

  private final int sequenceBits;
  private final int partitionBits;
  private final int taskAttemptBits;
  private final int maxSequence;
  private final int maxPartitions;
  private final long taskAttemptMask;

  /**
   * @throws IllegalArgumentException unless each width is at least 1, sequence and partition widths
   *     are at most {@value #MAX_INT_FIELD_BITS} and the three sum to {@value #TOTAL_BITS}
   */
  public BlockIdLayout(int sequenceBits, int partitionBits, int taskAttemptBits) {
    if (sequenceBits < 1 || partitionBits < 1 || taskAttemptBits < 1
        || sequenceBits > MAX_INT_FIELD_BITS || partitionBits > MAX_INT_FIELD_BITS
        || sequenceBits + partitionBits + taskAttemptBits != TOTAL_BITS) {
      throw new IllegalArgumentException("invalid block id layout: sequenceBits=" + sequenceBits
          + ", partitionBits=" + partitionBits + ", taskAttemptBits=" + taskAttemptBits
          + " (sum " + ((long) sequenceBits + partitionBits + taskAttemptBits) + "); each width must"
          + " be at least 1, the sequence and partition widths at most " + MAX_INT_FIELD_BITS
          + ", and the three must sum to " + TOTAL_BITS + ". Check " + SEQUENCE_BITS_KEY + ", "
          + PARTITION_BITS_KEY + " and " + TASK_ATTEMPT_BITS_KEY + ".");
    }
    this.sequenceBits = sequenceBits;
    this.partitionBits = partitionBits;
    this.taskAttemptBits = taskAttemptBits;
    this.maxSequence = (1 << sequenceBits) - 1;
    this.maxPartitions = 1 << partitionBits;
    this.taskAttemptMask = (1L << taskAttemptBits) - 1;
  }

  /**
   * The id of block {@code sequence} of the stream that task attempt {@code taskAttemptId} writes for
   * partition {@code partitionId}.
   *
   * @throws BlockIdOverflowException if the sequence exceeds {@link #maxSequence()} or the partition
   *     id is not below {@link #maxPartitions()}
   * @throws IllegalArgumentException if any argument is negative
   */
  public long blockId(int sequence, int partitionId, long taskAttemptId) {
    if (sequence < 0 || partitionId < 0 || taskAttemptId < 0) {
      throw new IllegalArgumentException("block id fields must be non-negative: sequence=" + sequence
          + ", partitionId=" + partitionId + ", taskAttemptId=" + taskAttemptId);
    }
    if (sequence > maxSequence) {
      throw new BlockIdOverflowException("map task attempt " + taskAttemptId + " needs block sequence "
          + sequence + " for partition " + partitionId + ", but block ids hold sequences 0.."
          + maxSequence + " (" + sequenceBits + " sequence bits): one map task can write at most "
          + (maxSequence + 1L) + " blocks per partition. Raise " + BLOCK_SIZE_KEY
          + " (fewer, larger blocks), or move bits to " + SEQUENCE_BITS_KEY + " from "
          + TASK_ATTEMPT_BITS_KEY + " (the three widths must sum to " + TOTAL_BITS + ").");
    }
    if (partitionId >= maxPartitions) {
      throw partitionOverflow("partition id " + partitionId + " does not fit block ids");
    }
    return ((long) sequence << (partitionBits + taskAttemptBits))
        | ((long) partitionId << taskAttemptBits)
        | (taskAttemptId & taskAttemptMask);
  }

  /** The block's sequence number within its stream. */
  public int sequence(long blockId) {
    checkBlockId(blockId);
    return (int) (blockId >>> (partitionBits + taskAttemptBits));
  }

  /** The block's partition id. */
  public int partitionId(long blockId) {
    checkBlockId(blockId);
    return (int) ((blockId >>> taskAttemptBits) & ((1L << partitionBits) - 1));
  }

  /** The low {@link #taskAttemptWidth()} bits of the task attempt id the block was written by. */
  public long taskAttemptBits(long blockId) {
    checkBlockId(blockId);
    return blockId & taskAttemptMask;
  }

  /** Whether {@code blockId} can have been written by {@code taskAttemptId} (their low bits agree). */
  public boolean matchesTaskAttempt(long blockId, long taskAttemptId) {
    return taskAttemptBits(blockId) == (taskAttemptId & taskAttemptMask);
  }

  /** The largest sequence number a block can have: a stream holds at most maxSequence() + 1 blocks. */
  public int maxSequence() {
    return maxSequence;
  }

  /** The most partitions a shuffle can have: partition ids run from 0 to maxPartitions() - 1. */
  public int maxPartitions() {
    return maxPartitions;
  }

  /**
   * Checks, when a shuffle is registered, that its partition ids fit this layout, so that a job fails
   * before any task runs rather than in its first map task.
   *
   * @throws BlockIdOverflowException if {@code numPartitions} exceeds {@link #maxPartitions()}
   * @throws IllegalArgumentException if {@code numPartitions} is negative
   */
  public void checkPartitions(int numPartitions) {
    if (numPartitions < 0) {
      throw new IllegalArgumentException("numPartitions must be non-negative, got " + numPartitions);
    }
    if (numPartitions > maxPartitions) {
      throw partitionOverflow("a shuffle of " + numPartitions + " partitions does not fit block ids");
    }
  }

  public int sequenceWidth() {
    return sequenceBits;
  }

  public int partitionWidth() {
    return partitionBits;
  }

  public int taskAttemptWidth() {
    return taskAttemptBits;
  }

  /** The fields of {@code blockId}, for log lines and error messages. */
  public String describe(long blockId) {
    if (blockId < 0) {
      return "block " + blockId + " (invalid: negative)";
    }
    return "block " + blockId + " (sequence " + sequence(blockId) + ", partition "
        + partitionId(blockId) + ", task attempt bits " + taskAttemptBits(blockId) + ")";
  }

  private BlockIdOverflowException partitionOverflow(String what) {
    return new BlockIdOverflowException(what + ", which hold at most " + maxPartitions
        + " partitions (" + partitionBits + " partition bits). Use fewer partitions, or raise "
        + PARTITION_BITS_KEY + " and lower " + SEQUENCE_BITS_KEY + " or " + TASK_ATTEMPT_BITS_KEY
        + " by as much (the three widths must sum to " + TOTAL_BITS + ").");
  }

  private static void checkBlockId(long blockId) {
    if (blockId < 0) {
      throw new IllegalArgumentException("block ids are non-negative, got " + blockId);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockIdLayout other
        && sequenceBits == other.sequenceBits
        && partitionBits == other.partitionBits
        && taskAttemptBits == other.taskAttemptBits;
  }

  @Override
  public int hashCode() {
    return (sequenceBits * 64 + partitionBits) * 64 + taskAttemptBits;
  }

  @Override
  public String toString() {
    return "BlockIdLayout[sequenceBits=" + sequenceBits + ", partitionBits=" + partitionBits
        + ", taskAttemptBits=" + taskAttemptBits + "]";
  }
}
