package io.sluice.benchmark.transport;

import io.sluice.common.protocol.message.PushDataRequest;

/** What one benchmark connection pushes. Used by one thread; {@link #close()} frees its buffers. */
interface PushWorkload extends AutoCloseable {

  /** The next request to send; the caller owns it (and its body). */
  PushDataRequest next(long requestId);

  /** Requests allowed to be outstanding at once on the connection. */
  int window();

  @Override
  void close();
}
