package io.sluice.client.spark.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.codec.CompressionCodec;
import io.sluice.common.codec.CorruptBlockException;
import io.sluice.common.codec.NoneCodec;

/**
 * Checks a fetched block against the CRC32C its writer computed over the compressed bytes, and
 * decompresses it. Runs on the task's thread, which has the CPU time to spend, not on the event
 * loops.
 */
final class BlockDecoder {
  private final CompressionCodec codec;
  private final ByteBufAllocator allocator;

  BlockDecoder(CompressionCodec codec, ByteBufAllocator allocator) {
    this.codec = codec;
    this.allocator = allocator;
  }

  /**
   * The block's uncompressed bytes, in a buffer the caller owns and releases. The block keeps its
   * own reference and its indexes.
   *
   * @throws CorruptBlockException if the CRC32C does not match or the bytes do not decompress to
   *     the block's uncompressed length
   */
  ByteBuf decode(FetchedBlock block) throws CorruptBlockException {
    ByteBuf data = block.data();
    int crc = Crc32c.of(data);
    if (crc != block.crc32c()) {
      throw new CorruptBlockException(String.format(
          "CRC32C mismatch in %s: the writer computed %08x, the bytes read give %08x", block,
          block.crc32c(), crc));
    }
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
