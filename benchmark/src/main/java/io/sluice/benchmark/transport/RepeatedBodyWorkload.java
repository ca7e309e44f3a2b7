package io.sluice.benchmark.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import java.util.List;

/**
 * One block per request, whose body is always the same pooled direct buffer: each request gets a
 * retained duplicate of it, so the client copies no bytes and the figures are the transport's
 * alone.
 */
final class RepeatedBodyWorkload implements PushWorkload {
  private final ByteBuf template;
  private final int window;
  private final int crc;

  /** Wraps to 0 past Integer.MAX_VALUE: the sink keeps no blocks. */
  private int nextSequence;

  /**
   * @param blockBytes size of each request's single block
   * @param window requests outstanding at once
   */
  RepeatedBodyWorkload(ByteBufAllocator allocator, int blockBytes, int window) {
    this.template = allocator.directBuffer(blockBytes, blockBytes);
    this.template.writeBytes(Payload.bytes(blockBytes));
    this.window = window;
    this.crc = Payload.crc32c(blockBytes);
  }

  @Override
  public PushDataRequest next(long requestId) {
    int length = template.readableBytes();
    BlockDescriptor block =
        new BlockDescriptor(
            Payload.PARTITION,
            Payload.TASK_ATTEMPT,
            nextSequence++ & Integer.MAX_VALUE,
            length,
            length,
            crc);
    // The duplicate holds its own reference to the template; the request takes it over and the
    // channel releases it once the bytes are written.
    return new PushDataRequest(
        requestId,
        Payload.APP_ID,
        Payload.SHUFFLE_ID,
        List.of(),
        List.of(block),
        new NettyManagedBuffer(template.retainedDuplicate()));
  }

  @Override
  public int window() {
    return window;
  }

  @Override
  public void close() {
    template.release();
  }
}
