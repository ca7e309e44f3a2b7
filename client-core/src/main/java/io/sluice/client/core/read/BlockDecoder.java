package io.sluice.client.core.read;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.client.core.BlockCipher;
import io.sluice.client.core.codec.CompressionCodec;
import io.sluice.client.core.codec.CorruptBlockException;
import io.sluice.client.core.codec.NoneCodec;

/**
 * Decrypts (when the application encrypts its shuffle data) and decompresses a fetched block whose
 * CRC32C the reader already checked. Runs on the consuming task's thread, which has the CPU time to
 * spend, not on the event loops.
 */
public final class BlockDecoder {
  private final CompressionCodec codec;
  private final ByteBufAllocator allocator;
  private final BlockCipher cipher;

  public BlockDecoder(CompressionCodec codec, ByteBufAllocator allocator) {
    this(codec, allocator, null);
  }

  /**
   * @param cipher the application's block cipher; null when blocks are not encrypted
   */
  public BlockDecoder(CompressionCodec codec, ByteBufAllocator allocator, BlockCipher cipher) {
    this.codec = codec;
    this.allocator = allocator;
    this.cipher = cipher;
  }

  /**
   * The block's uncompressed bytes, in a buffer the caller owns and releases. The block keeps its
   * own reference and its indexes.
   *
   * @throws CorruptBlockException if the bytes do not decrypt, or do not decompress to the block's
   *     uncompressed length
   */
  public ByteBuf decode(FetchedBlock block) throws CorruptBlockException {
    int uncompressedLength = block.uncompressedLength();
    if (uncompressedLength < 0) {
      throw new CorruptBlockException(
          "negative uncompressed length " + uncompressedLength + " of " + block);
    }
    ByteBuf opened = null;
    if (cipher != null) {
      try {
        opened = cipher.open(block.data(), allocator);
      } catch (CorruptBlockException e) {
        throw new CorruptBlockException(block + ": " + e.getMessage(), e);
      }
    }
    ByteBuf data = opened != null ? opened : block.data();
    if (codec == NoneCodec.INSTANCE) {
      if (uncompressedLength != data.readableBytes()) {
        if (opened != null) {
          opened.release();
        }
        throw new CorruptBlockException(
            "uncompressed " + block + " claims " + uncompressedLength + " bytes");
      }
      return opened != null ? opened : data.retainedDuplicate();
    }
    // Start no larger than the bytes at hand: the codec checks the claimed length against the
    // compressed bytes before it grows the buffer, up to exactly that length.
    ByteBuf out =
        allocator.directBuffer(
            Math.min(uncompressedLength, data.readableBytes()), uncompressedLength);
    try {
      codec.decompress(data.duplicate(), out, uncompressedLength);
      return out;
    } catch (CorruptBlockException | RuntimeException e) {
      out.release();
      if (e instanceof CorruptBlockException corrupt) {
        throw new CorruptBlockException(block + ": " + corrupt.getMessage(), corrupt);
      }
      throw e;
    } finally {
      if (opened != null) {
        opened.release();
      }
    }
  }
}
