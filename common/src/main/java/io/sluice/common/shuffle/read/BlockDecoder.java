package io.sluice.common.shuffle.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.common.codec.CompressionCodec;
import io.sluice.common.codec.CorruptBlockException;
import io.sluice.common.codec.NoneCodec;

/**
 * Decompresses a fetched block (whose CRC32C the reader already checked). Runs on the consuming
 * task's thread, which has the CPU time to spend, not on the event loops.
 */
public final class BlockDecoder {
  private final CompressionCodec codec;
  private final ByteBufAllocator allocator;

  public BlockDecoder(CompressionCodec codec, ByteBufAllocator allocator) {
    this.codec = codec;
    this.allocator = allocator;
  }

  /**
   * The block's uncompressed bytes, in a buffer the caller owns and releases. The block keeps its
   * own reference and its indexes.
   *
   * @throws CorruptBlockException if the bytes do not decompress to the block's uncompressed length
   */
  public ByteBuf decode(FetchedBlock block) throws CorruptBlockException {
    ByteBuf data = block.data();
    int uncompressedLength = block.uncompressedLength();
    if (uncompressedLength < 0) {
      throw new CorruptBlockException(
          "negative uncompressed length " + uncompressedLength + " of " + block);
    }
    if (codec == NoneCodec.INSTANCE) {
      if (uncompressedLength != block.length()) {
        throw new CorruptBlockException("uncompressed " + block + " claims "
            + uncompressedLength + " bytes");
      }
      return data.retainedDuplicate();
    }
    // Start no larger than the bytes at hand: the codec checks the claimed length against the
    // compressed bytes before it grows the buffer, up to exactly that length.
    ByteBuf out = allocator.directBuffer(
        Math.min(uncompressedLength, block.length()), uncompressedLength);
    try {
      codec.decompress(data.duplicate(), out, uncompressedLength);
      return out;
    } catch (CorruptBlockException | RuntimeException e) {
      out.release();
      if (e instanceof CorruptBlockException corrupt) {
        throw new CorruptBlockException(block + ": " + corrupt.getMessage(), corrupt);
      }
      throw e;
    }
  }
}
