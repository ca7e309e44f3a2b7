package io.sluice.client.core.codec;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdException;
import io.netty.buffer.ByteBuf;

/**
 * Zstandard, one frame per block, at a fixed level. Direct buffers go to zstd's direct-buffer API
 * and heap buffers to its array API; a mix of the two (or a composite buffer) stages the odd side
 * in a pooled direct buffer.
 *
 * <p>Every call creates and frees its own native zstd context. Reusing contexts per thread would
 * save that allocation, but zstd-jni frees a context's native memory only on an explicit close,
 * which a stateless codec shared across threads has no point to call.
 */
public final class ZstdCodec implements CompressionCodec {
  public static final int DEFAULT_LEVEL = 1;

  /** Longest zstd frame header (ZSTD_FRAMEHEADERSIZE_MAX): where the frame declares its size. */
  private static final int MAX_FRAME_HEADER_SIZE = 18;

  private final int level;

  public ZstdCodec() {
    this(DEFAULT_LEVEL);
  }

  /**
   * @throws IllegalArgumentException if {@code level} is outside zstd's range (negative levels are
   *     zstd's fast levels; 0 means zstd's default)
   */
  public ZstdCodec(int level) {
    if (level < Zstd.minCompressionLevel() || level > Zstd.maxCompressionLevel()) {
      throw new IllegalArgumentException(
          "zstd level "
              + level
              + " is outside "
              + Zstd.minCompressionLevel()
              + ".."
              + Zstd.maxCompressionLevel());
    }
    this.level = level;
  }

  public int level() {
    return level;
  }

  @Override
  public String name() {
    return "zstd";
  }

  @Override
  public int maxCompressedLength(int length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be non-negative, got " + length);
    }
    long bound = Zstd.compressBound(length);
    if (bound > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "a block of " + length + " bytes is too large to compress");
    }
    return (int) bound;
  }

  @Override
  public int compress(ByteBuf src, ByteBuf dst) {
    int length = src.readableBytes();
    int bound = maxCompressedLength(length);
    dst.ensureWritable(bound);
    int inIndex = src.readerIndex();
    int outIndex = dst.writerIndex();
    int written;
    if (src.hasArray() && dst.hasArray()) {
      written =
          (int)
              Zstd.compressByteArray(
                  dst.array(),
                  dst.arrayOffset() + outIndex,
                  bound,
                  src.array(),
                  src.arrayOffset() + inIndex,
                  length,
                  level);
    } else {
      try (NioWindow in = NioWindow.forReading(src, inIndex, length, true);
          NioWindow out = NioWindow.forWriting(dst, outIndex, bound, true)) {
        written =
            (int) Zstd.compressDirectByteBuffer(out.nio(), 0, bound, in.nio(), 0, length, level);
        out.commit(written);
      }
    }
    src.skipBytes(length);
    dst.writerIndex(outIndex + written);
    return written;
  }

  @Override
  public void decompress(ByteBuf src, ByteBuf dst, int uncompressedLength)
      throws CorruptBlockException {
    int length = src.readableBytes();
    checkDeclaredSize(src, length, uncompressedLength);
    dst.ensureWritable(uncompressedLength);
    int inIndex = src.readerIndex();
    int outIndex = dst.writerIndex();
    long produced;
    try {
      if (src.hasArray() && dst.hasArray()) {
        produced =
            Zstd.decompressByteArray(
                dst.array(),
                dst.arrayOffset() + outIndex,
                uncompressedLength,
                src.array(),
                src.arrayOffset() + inIndex,
                length);
      } else {
        try (NioWindow in = NioWindow.forReading(src, inIndex, length, true);
            NioWindow out = NioWindow.forWriting(dst, outIndex, uncompressedLength, true)) {
          produced =
              Zstd.decompressDirectByteBuffer(
                  out.nio(), 0, uncompressedLength, in.nio(), 0, length);
          if (produced == uncompressedLength) {
            out.commit(uncompressedLength);
          }
        }
      }
    } catch (ZstdException e) {
      throw new CorruptBlockException(
          "zstd block of "
              + length
              + " bytes does not decompress to "
              + uncompressedLength
              + " bytes: "
              + e.getMessage(),
          e);
    }
    if (produced != uncompressedLength) {
      throw new CorruptBlockException(
          "zstd block of "
              + length
              + " bytes decompressed to "
              + produced
              + " bytes, but its header says "
              + uncompressedLength);
    }
    src.skipBytes(length);
    dst.writerIndex(outIndex + uncompressedLength);
  }

  /**
   * Our frames always declare their content size; one that declares none, or another size than the
   * block header, is corrupt. Checked on a copy of the frame header, before {@code dst} grows.
   */
  private static void checkDeclaredSize(ByteBuf src, int length, int uncompressedLength)
      throws CorruptBlockException {
    if (uncompressedLength < 0) {
      throw new CorruptBlockException(
          "zstd block header claims a negative length " + uncompressedLength);
    }
    if (length == 0) {
      throw new CorruptBlockException(
          "empty zstd block; its header says " + uncompressedLength + " bytes");
    }
    byte[] header = new byte[Math.min(length, MAX_FRAME_HEADER_SIZE)];
    src.getBytes(src.readerIndex(), header);
    long declared = Zstd.getFrameContentSize(header, 0, header.length);
    if (declared != uncompressedLength) {
      throw new CorruptBlockException(
          "zstd block of "
              + length
              + " bytes "
              + (declared < 0
                  ? "has no valid frame header declaring its size"
                  : "declares " + declared + " bytes")
              + ", but its header says "
              + uncompressedLength);
    }
  }

  @Override
  public String toString() {
    return "ZstdCodec[level=" + level + "]";
  }
}
