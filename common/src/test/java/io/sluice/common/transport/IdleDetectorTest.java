package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class IdleDetectorTest {
  private static final long TIMEOUT_MS = 1000;
  private static final long CHECK_MS = TIMEOUT_MS / 4;

  private final IdleEvents events = new IdleEvents();
  private EmbeddedChannel channel;

  @BeforeEach
  void openChannel() {
    channel = new EmbeddedChannel();
    channel.freezeTime();
    channel.pipeline().addLast(new IdleDetector(TIMEOUT_MS), events);
  }

  @AfterEach
  void closeChannel() {
    channel.finishAndReleaseAll();
  }

  @Test
  void aConnectionWithoutMessagesIsIdleAfterTheTimeout() {
    advance(TIMEOUT_MS - 1);
    assertEquals(0, events.count);

    advance(1);
    assertEquals(1, events.count);
  }

  @Test
  void idleIsReportedAgainWhileItLasts() {
    advance(TIMEOUT_MS);
    advance(CHECK_MS);
    advance(CHECK_MS);

    assertEquals(3, events.count);
  }

  @Test
  void messagesEitherWayKeepTheConnectionBusy() {
    for (int i = 0; i < 20; i++) {
      advance(CHECK_MS);
      if (i % 2 == 0) {
        channel.writeInbound("request");
      } else {
        channel.writeOutbound("answer");
      }
    }
    assertEquals(0, events.count);
    channel.releaseInbound();
    channel.releaseOutbound();
  }

  @Test
  void idleComesBetweenOneAndOneAndAQuarterTimeoutsAfterTheLastMessage() {
    advance(CHECK_MS / 2);
    channel.writeInbound("request");
    channel.releaseInbound();

    // The message was seen at the first check; four quiet checks follow it.
    advance(CHECK_MS / 2 + TIMEOUT_MS - 1);
    assertEquals(0, events.count);
    advance(1);
    assertEquals(1, events.count);
  }

  @Test
  void noEventAfterTheConnectionCloses() {
    channel.close();
    advance(2 * TIMEOUT_MS);

    assertEquals(0, events.count);
  }

  private void advance(long millis) {
    channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
  }

  private static final class IdleEvents extends ChannelInboundHandlerAdapter {
    int count;

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt == IdleStateEvent.ALL_IDLE_STATE_EVENT) {
        count++;
      }
    }
  }
}
