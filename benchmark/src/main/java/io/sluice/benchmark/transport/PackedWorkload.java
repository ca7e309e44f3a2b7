package io.sluice.benchmark.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import java.util.List;

/**
 * Client-side batching as a shuffle writer does it: each request packs many small messages into one
 * frame, copying every message into a fresh pooled buffer and describing it with its own {@link
 * BlockDescriptor}. The packing is measured too, since a batching client pays for it.
 */
final class PackedWorkload implements PushWorkload {
  private final ByteBufAllocator allocator;
  private final byte[] message;
  private final int messagesPerFrame;
  private final int window;
  private final int crc;

  /** Wraps to 0 past Integer.MAX_VALUE: the sink keeps no blocks. */
  private int nextSequence;

  PackedWorkload(ByteBufAllocator allocator, int messageBytes, int messagesPerFrame, int window) {
    this.allocator = allocator;
    this.message = Payload.bytes(messageBytes);
    this.messagesPerFrame = messagesPerFrame;
    this.window = window;
    this.crc = Payload.crc32c(messageBytes);
  }

  @Override
  public PushDataRequest next(long requestId) {
    int bodyBytes = message.length * messagesPerFrame;
    ByteBuf body = allocator.directBuffer(bodyBytes, bodyBytes);
    BlockDescriptor[] blocks = new BlockDescriptor[messagesPerFrame];
    for (int i = 0; i < messagesPerFrame; i++) {
      body.writeBytes(message);
      blocks[i] =
          new BlockDescriptor(
              Payload.PARTITION,
              Payload.TASK_ATTEMPT,
              nextSequence++ & Integer.MAX_VALUE,
              message.length,
              message.length,
              crc);
    }
    // The request takes over the body's only reference; the channel releases it once written.
    return new PushDataRequest(
        requestId,
        Payload.APP_ID,
        Payload.SHUFFLE_ID,
        List.of(),
        List.of(blocks),
        new NettyManagedBuffer(body));
  }

  @Override
  public int window() {
    return window;
  }

  @Override
  public void close() {}
}
