package io.sluice.client.spark;

import io.sluice.client.core.BlockCipher;
import io.sluice.client.core.codec.CompressionCodec;
import io.sluice.client.core.codec.Lz4Codec;
import io.sluice.client.core.codec.NoneCodec;

/**
 * The sizes Spark's sort shuffle would count for the same records. Map tasks put them in their
 * {@code MapStatus} and their bytes-written metric, and reduce tasks count the same sizes as bytes
 * read, so that both metrics agree as they do with the built-in shuffle: adaptive execution plans
 * from the partition sizes (coalescing, skew splits, join selection), so they must not depend on
 * Sluice's own framing.
 *
 * <p>Spark writes a partition as one compression stream of its serialized records. With lz4 (the
 * default) that stream is chunks of {@code spark.io.compression.lz4.blockSize}, each behind a
 * 21-byte header, then a 21-byte end mark; Sluice's lz4 blocks are compressed in the same chunks
 * behind 8-byte headers, so a partition whose map output fits one block has exactly Spark's size,
 * and a larger one differs only where a block boundary falls inside one of Spark's chunks. Without
 * compression the size is the serialized bytes, as in Spark. With zstd it is the compressed bytes:
 * Spark's zstd stream frames its input differently, so those sizes are close to Spark's, not equal.
 * With Spark's I/O encryption the stream is encrypted whole, behind a 16-byte IV; Sluice's
 * per-block encryption is not counted.
 */
public final class SortShuffleSizes {
  /**
   * The header of each chunk of lz4-java's {@code LZ4BlockOutputStream}, which Spark's lz4 codec
   * writes: an 8-byte magic, a token byte, and the compressed length, uncompressed length and
   * checksum as int32. Its end mark is one such header too.
   */
  static final int LZ4_STREAM_HEADER_LENGTH = 21;

  /** The IV in front of each stream that Spark's I/O encryption writes (CryptoStreamUtils). */
  static final int SPARK_IV_LENGTH = 16;

  private final CompressionCodec codec;
  private final boolean ioEncryption;

  /**
   * @param ioEncryption whether {@code spark.io.encryption.enabled} is on, and so whether Sluice
   *     seals each block
   */
  public SortShuffleSizes(CompressionCodec codec, boolean ioEncryption) {
    this.codec = codec;
    this.ioEncryption = ioEncryption;
  }

  /** What Spark's stream holds for one block's records, given the block as compressed. */
  public long ofBlock(int compressedLength, int uncompressedLength) {
    if (codec instanceof Lz4Codec lz4) {
      return lz4.reframedLength(compressedLength, uncompressedLength, LZ4_STREAM_HEADER_LENGTH);
    }
    if (codec instanceof NoneCodec) {
      return uncompressedLength;
    }
    return compressedLength;
  }

  /** {@link #ofBlock} of a block as pushed and fetched: compressed, then sealed if encrypted. */
  public long ofStoredBlock(int storedLength, int uncompressedLength) {
    return ofBlock(storedLength - (ioEncryption ? BlockCipher.OVERHEAD : 0), uncompressedLength);
  }

  /** What Spark's stream adds once per non-empty partition of a map output: end mark and IV. */
  public long perStream() {
    return (codec instanceof Lz4Codec ? LZ4_STREAM_HEADER_LENGTH : 0)
        + (ioEncryption ? SPARK_IV_LENGTH : 0);
  }
}
