package io.sluice.common.transport;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fires {@link IdleStateEvent#ALL_IDLE_STATE_EVENT} when a connection has neither read nor written
 * a message for the idle timeout, and again every quarter of it while that lasts (a client waits
 * for its outstanding requests before it closes).
 *
 * <p>Netty's {@code IdleStateHandler} does the same but adds a listener to every write's promise
 * and reads the clock per message; at hundreds of thousands of small requests a second on one
 * connection that was a tenth of each event loop's time. Here a message only sets a flag, and a
 * check every quarter of the timeout counts the checks in a row that found it unset: a connection
 * is found idle between one and one and a quarter timeouts after its last message. Event loop only.
 */
final class IdleDetector extends ChannelDuplexHandler {
  private static final int QUIET_CHECKS = 4;

  private final long checkNanos;
  private boolean active;
  private int quietChecks;
  private ScheduledFuture<?> check;

  IdleDetector(long timeoutMillis) {
    this.checkNanos = Math.max(1, TimeUnit.MILLISECONDS.toNanos(timeoutMillis) / QUIET_CHECKS);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    start(ctx);
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    stop();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    active = true;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    active = true;
    ctx.write(msg, promise);
  }

  private void start(ChannelHandlerContext ctx) {
    if (check != null) {
      return;
    }
    check =
        ctx.executor()
            .scheduleAtFixedRate(() -> check(ctx), checkNanos, checkNanos, TimeUnit.NANOSECONDS);
  }

  private void check(ChannelHandlerContext ctx) {
    if (active) {
      active = false;
      quietChecks = 0;
    } else if (++quietChecks >= QUIET_CHECKS && ctx.channel().isOpen()) {
      ctx.fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
    }
  }

  private void stop() {
    if (check != null) {
      check.cancel(false);
    }
  }
}
