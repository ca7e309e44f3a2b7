package io.sluice.benchmark.transport;

import java.util.zip.CRC32C;

/** The fixed header fields and the bytes the benchmark pushes. */
final class Payload {
  static final String APP_ID = "transport-benchmark";
  static final int SHUFFLE_ID = 0;
  static final int PARTITION = 0;
  static final long TASK_ATTEMPT = 0L;

  private Payload() {}

  /** {@code length} bytes of a repeating, not all-zero pattern. */
  static byte[] bytes(int length) {
    byte[] data = new byte[length];
    for (int i = 0; i < length; i++) {
      data[i] = (byte) (i * 31 + 7);
    }
    return data;
  }

  /** The CRC32C of {@link #bytes(int)}, as a block descriptor carries it. */
  static int crc32c(int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes(length));
    return (int) crc.getValue();
  }
}
