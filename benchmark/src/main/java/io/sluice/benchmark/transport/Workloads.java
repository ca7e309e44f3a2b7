package io.sluice.benchmark.transport;

import io.netty.buffer.ByteBufAllocator;

/** The three workloads the benchmark measures, and their sizes. */
final class Workloads {
  static final int BULK_BODY_BYTES = 1 << 20;

  /** 16 MiB in flight per connection: enough to keep a loopback socket busy. */
  static final int BULK_WINDOW = 16;

  static final int MESSAGE_BYTES = 100;
  static final int UNBATCHED_WINDOW = 1024;

  /** About 400 KiB of messages (and 112 KiB of 28-byte block descriptors) per frame. */
  static final int MESSAGES_PER_FRAME = 4096;

  static final int BATCHED_WINDOW = 16;

  private Workloads() {}

  static PushWorkload bulk(ByteBufAllocator allocator) {
    return new RepeatedBodyWorkload(allocator, BULK_BODY_BYTES, BULK_WINDOW);
  }

  static PushWorkload unbatched(ByteBufAllocator allocator) {
    return new RepeatedBodyWorkload(allocator, MESSAGE_BYTES, UNBATCHED_WINDOW);
  }

  static PushWorkload batched(ByteBufAllocator allocator) {
    return new PackedWorkload(allocator, MESSAGE_BYTES, MESSAGES_PER_FRAME, BATCHED_WINDOW);
  }
}
