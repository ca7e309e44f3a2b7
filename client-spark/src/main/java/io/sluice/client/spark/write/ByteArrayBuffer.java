package io.sluice.client.spark.write;

import java.io.OutputStream;
import java.util.Arrays;

/** An unsynchronised growable byte array; the serialized records of one partition's next block. */
final class ByteArrayBuffer extends OutputStream {
  private byte[] bytes;
  private int count;

  ByteArrayBuffer(int initialCapacity) {
    this(new byte[initialCapacity]);
  }

  /** An empty buffer that writes into {@code bytes} (whatever they hold) until it must grow. */
  ByteArrayBuffer(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public void write(int b) {
    ensure(count + 1);
    bytes[count++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensure(count + len);
    System.arraycopy(b, off, bytes, count, len);
    count += len;
  }

  byte[] array() {
    return bytes;
  }

  int size() {
    return count;
  }

  int capacity() {
    return bytes.length;
  }

  void reset() {
    count = 0;
  }

  /** Drops the content and shrinks to {@code capacity} bytes if larger. */
  void resetAndShrink(int capacity) {
    count = 0;
    if (bytes.length > capacity) {
      bytes = new byte[capacity];
    }
  }

  private void ensure(int needed) {
    if (needed > bytes.length) {
      if (needed < 0) {
        throw new OutOfMemoryError("partition buffer over 2 GiB");
      }
      bytes = Arrays.copyOf(bytes, Math.max(needed, bytes.length * 2));
    }
  }
}
