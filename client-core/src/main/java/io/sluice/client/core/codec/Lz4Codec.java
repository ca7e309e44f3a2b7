package io.sluice.client.core.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * LZ4 in chunks, as Spark's LZ4 stream cuts its input: a block is compressed in chunks of {@code
 * chunkSize} bytes (Spark's {@code spark.io.compression.lz4.blockSize}), each with lz4-java's fast
 * compressor, and a chunk that does not shrink is stored as it is. A block that fits one chunk
 * therefore compresses to exactly the bytes Spark's stream holds for the same input, and {@link
 * #reframedLength} gives the length Spark's stream framing would have, which map tasks report to
 * Spark as the partition's size.
 *
 * <p>Each chunk is an 8-byte header, two big-endian int32: the stored length with the top bit set
 * when the chunk is stored uncompressed, and the chunk's uncompressed length; then the stored
 * bytes. Decompression checks every length against the block's known size and uses the safe
 * decompressor, so that no input can make it read or write outside the given ranges.
 */
public final class Lz4Codec implements CompressionCodec {
  /** Spark's default {@code spark.io.compression.lz4.blockSize}. */
  public static final int DEFAULT_CHUNK_SIZE = 32 * 1024;

  /** The smallest and largest chunk sizes, as lz4-java's stream accepts them. */
  public static final int MIN_CHUNK_SIZE = 64;

  public static final int MAX_CHUNK_SIZE = 32 << 20;
  static final int CHUNK_HEADER_LENGTH = 8;
  private static final int STORED_FLAG = 0x8000_0000;

  /**
   * The most output one input byte can produce in the LZ4 block format: a match-length extension
   * byte adds at most 255 bytes. A header that claims more cannot be true, and is rejected before
   * the output buffer grows.
   */
  private static final long MAX_EXPANSION = 255;

  private final LZ4Compressor compressor;
  private final LZ4SafeDecompressor decompressor;
  private final int chunkSize;

  /** The fastest implementation available (native when it loads), in Spark's default chunks. */
  public Lz4Codec() {
    this(DEFAULT_CHUNK_SIZE);
  }

  /**
   * @param chunkSize uncompressed bytes per chunk, {@value #MIN_CHUNK_SIZE} to 32 MiB
   * @throws IllegalArgumentException if the chunk size is out of that range
   */
  public Lz4Codec(int chunkSize) {
    this(LZ4Factory.fastestInstance(), chunkSize);
  }

  Lz4Codec(LZ4Factory factory, int chunkSize) {
    if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
      throw new IllegalArgumentException(
          "an lz4 chunk size of "
              + chunkSize
              + " bytes is outside "
              + MIN_CHUNK_SIZE
              + " bytes to 32 MiB");
    }
    this.compressor = factory.fastCompressor();
    this.decompressor = factory.safeDecompressor();
    this.chunkSize = chunkSize;
  }

  @Override
  public String name() {
    return "lz4";
  }

  public int chunkSize() {
    return chunkSize;
  }

  @Override
  public int maxCompressedLength(int length) {
    long full = length / chunkSize;
    int rest = length % chunkSize;
    long bound =
        full * (CHUNK_HEADER_LENGTH + compressor.maxCompressedLength(chunkSize))
            + (rest == 0 ? 0 : CHUNK_HEADER_LENGTH + compressor.maxCompressedLength(rest));
    return Math.toIntExact(bound);
  }

  @Override
  public int compress(ByteBuf src, ByteBuf dst) {
    int length = src.readableBytes();
    int bound = maxCompressedLength(length);
    dst.ensureWritable(bound);
    int outIndex = dst.writerIndex();
    int written = 0;
    try (NioWindow in = NioWindow.forReading(src, src.readerIndex(), length, false);
        NioWindow out = NioWindow.forWriting(dst, outIndex, bound, false)) {
      ByteBuffer input = in.nio();
      ByteBuffer output = out.nio();
      for (int at = 0; at < length; at += chunkSize) {
        int chunk = Math.min(chunkSize, length - at);
        int payload = written + CHUNK_HEADER_LENGTH;
        int stored = compressor.compress(input, at, chunk, output, payload, bound - payload);
        int header = stored;
        if (stored >= chunk) {
          // As Spark's stream does: a chunk that does not shrink is kept as it is.
          output.put(payload, input, at, chunk);
          stored = chunk;
          header = chunk | STORED_FLAG;
        }
        output.putInt(written, header);
        output.putInt(written + 4, chunk);
        written = payload + stored;
      }
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
      throw new CorruptBlockException(
          "lz4 block of "
              + length
              + " bytes cannot hold the "
              + uncompressedLength
              + " bytes its header claims");
    }
    dst.ensureWritable(uncompressedLength);
    int outIndex = dst.writerIndex();
    try (NioWindow in = NioWindow.forReading(src, src.readerIndex(), length, false);
        NioWindow out = NioWindow.forWriting(dst, outIndex, uncompressedLength, false)) {
      ByteBuffer input = in.nio();
      ByteBuffer output = out.nio();
      int at = 0;
      int produced = 0;
      while (at < length) {
        if (length - at < CHUNK_HEADER_LENGTH) {
          throw corrupt(length, uncompressedLength, "a chunk header is cut off at byte " + at);
        }
        int header = input.getInt(at);
        int stored = header & ~STORED_FLAG;
        int chunk = input.getInt(at + 4);
        int payload = at + CHUNK_HEADER_LENGTH;
        if (stored > length - payload || chunk <= 0 || chunk > uncompressedLength - produced) {
          throw corrupt(
              length,
              uncompressedLength,
              "the chunk at byte "
                  + at
                  + " claims "
                  + stored
                  + " stored and "
                  + chunk
                  + " uncompressed bytes");
        }
        if ((header & STORED_FLAG) != 0) {
          if (stored != chunk) {
            throw corrupt(
                length,
                uncompressedLength,
                "the stored chunk at byte " + at + " has " + stored + " bytes but claims " + chunk);
          }
          output.put(produced, input, payload, chunk);
        } else {
          int n;
          try {
            n = decompressor.decompress(input, payload, stored, output, produced, chunk);
          } catch (LZ4Exception e) {
            throw corrupt(
                length,
                uncompressedLength,
                "the chunk at byte " + at + " does not decompress: " + e.getMessage());
          }
          if (n != chunk) {
            throw corrupt(
                length,
                uncompressedLength,
                "the chunk at byte "
                    + at
                    + " decompressed to "
                    + n
                    + " bytes, but claims "
                    + chunk);
          }
        }
        produced += chunk;
        at = payload + stored;
      }
      if (produced != uncompressedLength) {
        throw corrupt(length, uncompressedLength, "its chunks hold " + produced + " bytes");
      }
      out.commit(produced);
    }
    src.skipBytes(length);
    dst.writerIndex(outIndex + uncompressedLength);
  }

  /**
   * The length of a block of this codec if each chunk had a header of {@code chunkHeaderLength}
   * bytes instead of this codec's: for Spark's LZ4 stream (21-byte headers), the bytes the stream
   * writes for the same input before its end mark. A block holds one chunk per {@link #chunkSize()}
   * uncompressed bytes (the last may be shorter), so its lengths alone give the count; the bytes
   * need not be at hand (they may still be sealed).
   *
   * @param blockLength the block's compressed length, chunk headers included
   * @param uncompressedLength what the block decompresses to
   */
  public long reframedLength(int blockLength, int uncompressedLength, int chunkHeaderLength) {
    long chunks = (uncompressedLength + (long) chunkSize - 1) / chunkSize;
    return blockLength + chunks * (chunkHeaderLength - CHUNK_HEADER_LENGTH);
  }

  private static CorruptBlockException corrupt(int length, int uncompressedLength, String what) {
    return new CorruptBlockException(
        "lz4 block of "
            + length
            + " bytes and "
            + uncompressedLength
            + " uncompressed bytes is corrupt: "
            + what);
  }

  @Override
  public String toString() {
    return "Lz4Codec[" + compressor + ", chunks of " + chunkSize + " bytes]";
  }
}
