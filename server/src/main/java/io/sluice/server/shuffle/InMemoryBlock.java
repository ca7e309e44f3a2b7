package io.sluice.server.shuffle;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.server.storage.FlushableBlock;

/**
 * A pushed block held in the push pool. {@code data} is an exact-size buffer from the {@code
 * PushBufferPool}; the partition that holds the block owns it and frees it once the block is on
 * disk (or its shuffle is deleted). {@code arrival} numbers blocks in arrival order within a
 * partition (the "sequence" that memory reads page by), so that paged memory reads never skip a
 * block.
 */
public record InMemoryBlock(BlockDescriptor descriptor, ByteBuf data, long arrival)
    implements FlushableBlock {

  @Override
  public long taskAttemptId() {
    return descriptor.taskAttemptId();
  }

  @Override
  public int sequence() {
    return descriptor.sequence();
  }

  @Override
  public int uncompressedLength() {
    return descriptor.uncompressedLength();
  }

  @Override
  public int crc32c() {
    return descriptor.crc32c();
  }

  public int length() {
    return descriptor.length();
  }
}
