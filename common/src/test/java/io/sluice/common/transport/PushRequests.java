package io.sluice.common.transport;

import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import java.util.List;

final class PushRequests {
  private PushRequests() {}

  /** A push of one block of partition 0 whose bytes are {@code body}; takes over {@code body}. */
  static PushDataRequest singleBlock(long requestId, ManagedBuffer body) {
    BlockDescriptor block = new BlockDescriptor(0, 1L, 1, (int) body.size(), (int) body.size(), 0);
    return new PushDataRequest(requestId, "app", 0, List.of(), List.of(block), body);
  }
}
