package io.sluice.client.core.codec;

import io.netty.buffer.ByteBuf;

/**
 * Compresses one block at a time. A block is compressed whole and decompressed whole; the
 * compressed bytes carry no length of their own, so the uncompressed length travels in the block's
 * header and is handed back to {@link #decompress}.
 *
 * <p>Both methods read all of {@code src}'s readable bytes, move its reader index to its writer
 * index, and append their output at {@code dst}'s writer index, growing {@code dst} as needed.
 * Neither takes or releases a reference to either buffer. Heap, direct and composite buffers are
 * all accepted; direct buffers are passed to native code without a copy to the heap (a composite
 * buffer of several components, or a mix of heap and direct where the codec needs one kind, is
 * staged in a pooled direct buffer).
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface CompressionCodec {
  /** The codec's name as Spark spells it in {@code spark.io.compression.codec}: lz4, zstd, none. */
  String name();

  /** The most bytes {@link #compress} can write for {@code length} input bytes. */
  int maxCompressedLength(int length);

  /**
   * Compresses {@code src}'s readable bytes into {@code dst} at its writer index, and advances both
   * buffers' indexes past what was read and written.
   *
   * @return the number of bytes written to {@code dst}
   */
  int compress(ByteBuf src, ByteBuf dst);

  /**
   * Decompresses {@code src}'s readable bytes, which must be exactly one compressed block, into
   * {@code dst} at its writer index. On success both buffers' indexes advance past what was read
   * and written. {@code uncompressedLength} comes from the block's header and is not trusted: it is
   * checked against the compressed bytes before {@code dst} grows, and the output must match it
   * exactly. Callers bound it by their largest block size before calling.
   *
   * @throws CorruptBlockException if {@code src} is not a valid compressed block, or does not
   *     decompress to exactly {@code uncompressedLength} bytes. Neither buffer's indexes move then,
   *     though bytes past {@code dst}'s writer index may have been overwritten.
   */
  void decompress(ByteBuf src, ByteBuf dst, int uncompressedLength) throws CorruptBlockException;
}
