package io.sluice.common.codec;

import io.netty.buffer.ByteBuf;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * LZ4 block format: lz4-java's fast compressor, and its safe decompressor bounded by the block's known
 * length, so that no input can make it read or write outside the given ranges.
 */
public final class Lz4Codec implements CompressionCodec {
  /**
   * The most output one input byte can produce in the LZ4 block format: a match-length extension byte
   * adds at most 255 bytes. A header that claims more cannot be true, and is rejected before the
   * output buffer grows.
   */
  private static final long MAX_EXPANSION = 255;

  private final LZ4Compressor compressor;
  private final LZ4SafeDecompressor decompressor;

  /** The fastest implementation available: native when it loads, pure Java otherwise. */
  public Lz4Codec() {
    this(LZ4Factory.fastestInstance());
  }

  Lz4Codec(LZ4Factory factory) {
    this.compressor = factory.fastCompressor();
    this.decompressor = factory.safeDecompressor();
  }

  @Override
  public String name() {
    return "lz4";
  }

  @Override
  public int maxCompressedLength(int length) {
    return compressor.maxCompressedLength(length);
  }

  @Override
  public int compress(ByteBuf src, ByteBuf dst) {
    int length = src.readableBytes();
    int bound = compressor.maxCompressedLength(length);
    dst.ensureWritable(bound);
    int outIndex = dst.writerIndex();
    int written;
    try (NioWindow in = NioWindow.forReading(src, src.readerIndex(), length, false);
        NioWindow out = NioWindow.forWriting(dst, outIndex, bound, false)) {
      written = compressor.compress(in.nio(), 0, length, out.nio(), 0, bound);
      out.commit(written);
    }
    src.skipBytes(length);
    dst.writerIndex(outIndex + written);
    return written;
  }

  @Override
  public void decompress(ByteBuf src, ByteBuf dst, int uncompressedLength)
      throws CorruptBlockException {
    int length = src.readableBytes();
    if (uncompressedLength < 0 || uncompressedLength > length * MAX_EXPANSION) {
      throw new CorruptBlockException("lz4 block of " + length + " bytes cannot hold the "
          + uncompressedLength + " bytes its header claims");
    }
    dst.ensureWritable(uncompressedLength);
    int outIndex = dst.writerIndex();
    try (NioWindow in = NioWindow.forReading(src, src.readerIndex(), length, false);
        NioWindow out = NioWindow.forWriting(dst, outIndex, uncompressedLength, false)) {
      int produced;
      try {
        produced = decompressor.decompress(in.nio(), 0, length, out.nio(), 0, uncompressedLength);
      } catch (LZ4Exception e) {
        throw new CorruptBlockException("lz4 block of " + length + " bytes does not decompress to "
            + uncompressedLength + " bytes: " + e.getMessage(), e);
      }
      if (produced != uncompressedLength) {
        throw new CorruptBlockException("lz4 block of " + length + " bytes decompressed to "
            + produced + " bytes, but its header says " + uncompressedLength);
      }
      out.commit(produced);
    }
    src.skipBytes(length);
    dst.writerIndex(outIndex + uncompressedLength);
  }

  @Override
  public String toString() {
    return "Lz4Codec[" + compressor + "]";
  }
}
