package io.sluice.common.protocol.message;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.CorruptFrameException;
import io.sluice.common.protocol.WireEncoding;
import java.util.List;

/**
 * One block in a body that carries several blocks back to back ({@link PushDataRequest}, {@link
 * FetchMemoryDataResponse}): {@code int32 partitionId | int64 taskAttemptId | int32 sequence |
 * int32 length | int32 uncompressedLength | int32 crc32c}, 28 bytes.
 *
 * <p>A block is identified by (partitionId, taskAttemptId, sequence): the blocks one map attempt
 * writes to one partition are numbered 0, 1, 2, ... and its commit says how many there are.
 *
 * @param partitionId the partition the block belongs to
 * @param taskAttemptId the map task attempt that wrote the block
 * @param sequence the block's number among the blocks that attempt wrote to the partition
 * @param length bytes of the block in the body (compressed size)
 * @param uncompressedLength bytes after decompression
 * @param crc32c CRC32C of the block's {@code length} bytes as sent
 */
public record BlockDescriptor(
    int partitionId,
    long taskAttemptId,
    int sequence,
    int length,
    int uncompressedLength,
    int crc32c) {

  public static final int ENCODED_LENGTH = 4 + 8 + 4 + 4 + 4 + 4;

  public BlockDescriptor {
    if (length < 0 || sequence < 0) {
      throw new IllegalArgumentException(
          "negative block length " + length + " or sequence " + sequence);
    }
  }

  public void encode(ByteBuf out) {
    out.writeInt(partitionId);
    out.writeLong(taskAttemptId);
    out.writeInt(sequence);
    out.writeInt(length);
    out.writeInt(uncompressedLength);
    out.writeInt(crc32c);
  }

  public static BlockDescriptor decode(ByteBuf in) {
    int partitionId = in.readInt();
    long taskAttemptId = in.readLong();
    int sequence = in.readInt();
    int length = in.readInt();
    int uncompressedLength = in.readInt();
    int crc32c = in.readInt();
    if (length < 0 || sequence < 0) {
      throw new CorruptFrameException(
          "negative length "
              + length
              + " or sequence "
              + sequence
              + " of a block of map attempt "
              + taskAttemptId);
    }
    return new BlockDescriptor(
        partitionId, taskAttemptId, sequence, length, uncompressedLength, crc32c);
  }

  /** Sum of the blocks' lengths: the size the body carrying them must have. */
  public static long totalLength(List<BlockDescriptor> blocks) {
    long total = 0;
    for (BlockDescriptor block : blocks) {
      total += block.length;
    }
    return total;
  }

  static List<BlockDescriptor> decodeList(ByteBuf in) {
    int count = WireEncoding.readCount(in, ENCODED_LENGTH, "block");
    BlockDescriptor[] blocks = new BlockDescriptor[count];
    for (int i = 0; i < count; i++) {
      blocks[i] = decode(in);
    }
    return List.of(blocks);
  }

  static void encodeList(ByteBuf out, List<BlockDescriptor> blocks) {
    out.writeInt(blocks.size());
    for (BlockDescriptor block : blocks) {
      block.encode(out);
    }
  }

  static int listLength(List<BlockDescriptor> blocks) {
    return 4 + ENCODED_LENGTH * blocks.size();
  }

  /** Checks at construction that a body holds exactly the blocks described. */
  static void checkBodySize(List<BlockDescriptor> blocks, long bodySize) {
    long total = totalLength(blocks);
    if (total != bodySize) {
      throw new IllegalArgumentException(
          "blocks add up to " + total + " bytes but the body has " + bodySize);
    }
  }

  /** Checks while decoding that a frame's remaining bytes are exactly the blocks described. */
  static void checkFrameBodySize(List<BlockDescriptor> blocks, int bodySize) {
    long total = totalLength(blocks);
    if (total != bodySize) {
      throw new CorruptFrameException(
          "blocks add up to " + total + " bytes but the frame's body has " + bodySize);
    }
  }
}
