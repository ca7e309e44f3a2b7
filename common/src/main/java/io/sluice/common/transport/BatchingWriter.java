package io.sluice.common.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.RejectedExecutionException;

/**
 * Writes messages to one channel and flushes them in batches. Every write runs on the channel's
 * event loop and, unless a flush is already queued there, queues one behind itself; so every write
 * is followed by a flush, and a burst of small messages (a pipelining writer's requests, the
 * answers to one read of many requests) costs one system call, not one each.
 *
 * <p>The flag is read and set on the event loop only. Were writes and the flag check made on the
 * writer's thread, a queued flush could run between another thread's write task being queued and
 * its check of the flag, and leave that write unflushed for good.
 */
final class BatchingWriter {
  private final Channel channel;
  private final Runnable flush = this::flush;

  /** A flush is queued on the event loop and has not run yet. Event loop only. */
  private boolean flushQueued;

  BatchingWriter(Channel channel) {
    this.channel = channel;
  }

  /**
   * Writes {@code message}; ownership passes to the channel on every path (on a closed event loop
   * it is released and the future fails). Safe from any thread.
   */
  ChannelFuture write(Object message) {
    ChannelPromise promise = channel.newPromise();
    EventLoop loop = channel.eventLoop();
    if (loop.inEventLoop()) {
      writeOnLoop(message, promise);
    } else {
      try {
        loop.execute(() -> writeOnLoop(message, promise));
      } catch (RejectedExecutionException e) {
        ReferenceCountUtil.release(message);
        promise.setFailure(e);
      }
    }
    return promise;
  }

  private void writeOnLoop(Object message, ChannelPromise promise) {
    channel.write(message, promise);
    if (!flushQueued) {
      flushQueued = true;
      channel.eventLoop().execute(flush);
    }
  }

  private void flush() {
    flushQueued = false;
    channel.flush();
  }
}
