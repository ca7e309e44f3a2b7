package io.sluice.client.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * The kinds of buffer a codec meets. Sources start at a non-zero reader index, targets at a
 * non-zero writer index with little room, so that codecs must honour both indexes and grow their
 * target.
 */
enum BufferKind {
  HEAP(UnpooledByteBufAllocator.DEFAULT, false),
  DIRECT(UnpooledByteBufAllocator.DEFAULT, true),
  POOLED_HEAP(PooledByteBufAllocator.DEFAULT, false),
  POOLED_DIRECT(PooledByteBufAllocator.DEFAULT, true),
  /** Several components, heap and direct mixed, so no single NIO buffer covers the data. */
  COMPOSITE(UnpooledByteBufAllocator.DEFAULT, false),
  /** Heap memory behind a read-only wrapper: no array and not direct. Only a source. */
  READ_ONLY_HEAP(UnpooledByteBufAllocator.DEFAULT, false);

  static final int SOURCE_OFFSET = 5;
  static final byte[] TARGET_PREFIX = {7, 8, 9};

  private final ByteBufAllocator allocator;
  private final boolean direct;

  BufferKind(ByteBufAllocator allocator, boolean direct) {
    this.allocator = allocator;
    this.direct = direct;
  }

  boolean canBeTarget() {
    return this != READ_ONLY_HEAP;
  }

  /**
   * A new buffer whose readable bytes are {@code data}, after {@link #SOURCE_OFFSET} bytes read.
   */
  ByteBuf holding(byte[] data) {
    switch (this) {
      case COMPOSITE:
        {
          CompositeByteBuf composite = allocator.compositeBuffer();
          int third = data.length / 3;
          ByteBuf first = allocator.heapBuffer(SOURCE_OFFSET + third);
          first.writeZero(SOURCE_OFFSET).writeBytes(data, 0, third);
          ByteBuf second = allocator.directBuffer(third).writeBytes(data, third, third);
          ByteBuf third2 =
              allocator
                  .heapBuffer(data.length - 2 * third)
                  .writeBytes(data, 2 * third, data.length - 2 * third);
          composite.addComponents(true, first, allocator.heapBuffer(0), second, third2);
          return composite.skipBytes(SOURCE_OFFSET);
        }
      case READ_ONLY_HEAP:
        return HEAP.holding(data).asReadOnly();
      default:
        {
          ByteBuf buf =
              direct
                  ? allocator.directBuffer(SOURCE_OFFSET + data.length)
                  : allocator.heapBuffer(SOURCE_OFFSET + data.length);
          return buf.writeZero(SOURCE_OFFSET).writeBytes(data).skipBytes(SOURCE_OFFSET);
        }
    }
  }

  /** A new small buffer holding {@link #TARGET_PREFIX}, to be appended to. */
  ByteBuf target() {
    if (!canBeTarget()) {
      throw new IllegalStateException(this + " is not writable");
    }
    if (this == COMPOSITE) {
      CompositeByteBuf composite = allocator.compositeBuffer();
      composite.addComponent(
          true, allocator.directBuffer(TARGET_PREFIX.length).writeBytes(TARGET_PREFIX));
      return composite;
    }
    ByteBuf buf = direct ? allocator.directBuffer(8) : allocator.heapBuffer(8);
    return buf.writeBytes(TARGET_PREFIX);
  }
}
