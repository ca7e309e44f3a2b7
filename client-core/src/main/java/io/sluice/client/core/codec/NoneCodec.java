package io.sluice.client.core.codec;

import io.netty.buffer.ByteBuf;

/** Stores blocks as they are; the "compressed" block must have exactly the uncompressed length. */
public final class NoneCodec implements CompressionCodec {
  public static final NoneCodec INSTANCE = new NoneCodec();

  private NoneCodec() {}

  @Override
  public String name() {
    return "none";
  }

  @Override
  public int maxCompressedLength(int length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be non-negative, got " + length);
    }
    return length;
  }

  @Override
  public int compress(ByteBuf src, ByteBuf dst) {
    int length = src.readableBytes();
    dst.writeBytes(src);
    return length;
  }

  @Override
  public void decompress(ByteBuf src, ByteBuf dst, int uncompressedLength)
      throws CorruptBlockException {
    if (src.readableBytes() != uncompressedLength) {
      throw new CorruptBlockException(
          "uncompressed block of "
              + src.readableBytes()
              + " bytes, but its header says "
              + uncompressedLength);
    }
    dst.writeBytes(src);
  }

  @Override
  public String toString() {
    return "NoneCodec";
  }
}
