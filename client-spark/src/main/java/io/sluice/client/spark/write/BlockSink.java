package io.sluice.client.spark.write;

import java.io.IOException;

/** Receives the serialized bytes of one finished block of a partition. */
interface BlockSink {
  /** {@code bytes[0, length)} are the block's uncompressed content; they are not kept. */
  void block(int partition, byte[] bytes, int length) throws IOException;
}
