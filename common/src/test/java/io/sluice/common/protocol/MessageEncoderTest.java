package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.FileSegmentManagedBuffer;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.protocol.message.FetchDataResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MessageEncoderTest {
  @TempDir Path tempDir;

  @Test
  void headerShorterThanDeclaredFailsNamingTheClassAndWritesNothing() {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));

    EncoderException e =
        assertThrows(EncoderException.class, () -> channel.writeOutbound(new MiscountingMessage()));

    assertInstanceOf(IllegalStateException.class, e.getCause());
    assertTrue(
        e.getCause().getMessage().contains(MiscountingMessage.class.getName()),
        e.getCause().getMessage());
    assertNull(channel.readOutbound(), "no partial frame reaches the socket");
    channel.finishAndReleaseAll();
  }

  @Test
  void failedEncodingReleasesTheBody() {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));
    ManagedBuffer body = MessageFixtures.randomBody(new Random(1), 64);
    ByteBuf underlying = ((NettyManagedBuffer) body).byteBuf();

    assertThrows(
        EncoderException.class, () -> channel.writeOutbound(new MiscountingBodyMessage(body)));

    assertEquals(0, underlying.refCnt());
    assertNull(channel.readOutbound());
    channel.finishAndReleaseAll();
  }

  @Test
  void bodyThatCannotBeOpenedUnderTlsIsReleasedAndNothingIsWritten() {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(true));
    FileSegmentManagedBuffer missing =
        new FileSegmentManagedBuffer(tempDir.resolve("missing"), 0, 10);

    EncoderException e =
        assertThrows(
            EncoderException.class, () -> channel.writeOutbound(FetchDataResponse.ok(1, missing)));

    assertInstanceOf(NoSuchFileException.class, e.getCause());
    assertEquals(0, missing.refCnt());
    assertNull(channel.readOutbound());
    channel.finishAndReleaseAll();
  }

  @Test
  void bodyTooLargeForAFrameIsRefused() {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));
    HugeBuffer body = new HugeBuffer();

    EncoderException e =
        assertThrows(
            EncoderException.class, () -> channel.writeOutbound(FetchDataResponse.ok(1, body)));

    assertInstanceOf(IllegalArgumentException.class, e.getCause());
    assertEquals(0, body.refCnt());
    assertNull(channel.readOutbound());
    channel.finishAndReleaseAll();
  }

  @Test
  void smallBodyInMemoryTravelsInTheHeadersBuffer() {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));
    ManagedBuffer body =
        MessageFixtures.randomBody(new Random(2), MessageEncoder.INLINE_BODY_BYTES);
    ByteBuf underlying = ((NettyManagedBuffer) body).byteBuf();
    ByteBuf expected = underlying.copy();
    FetchDataResponse response = FetchDataResponse.ok(7, body);
    int headerBytes = 4 + 1 + response.encodedLength();

    channel.writeOutbound(response);

    ByteBuf frame = channel.readOutbound();
    assertNull(channel.readOutbound(), "one buffer per frame");
    assertEquals(headerBytes + MessageEncoder.INLINE_BODY_BYTES, frame.readableBytes());
    assertEquals(frame.readableBytes() - 4, frame.getInt(0));
    assertEquals(expected, frame.slice(headerBytes, MessageEncoder.INLINE_BODY_BYTES));
    assertEquals(0, underlying.refCnt(), "the body is released once copied");
    frame.release();
    expected.release();
    channel.finishAndReleaseAll();
  }

  @Test
  void largerBodyFollowsTheHeaderAsItsOwnBuffer() {
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));
    int size = MessageEncoder.INLINE_BODY_BYTES + 1;
    ManagedBuffer body = MessageFixtures.randomBody(new Random(3), size);

    channel.writeOutbound(FetchDataResponse.ok(8, body));

    ByteBuf header = channel.readOutbound();
    ByteBuf sent = channel.readOutbound();
    assertEquals(size, sent.readableBytes());
    assertEquals(header.readableBytes() - 4 + size, header.getInt(0));
    header.release();
    sent.release();
    channel.finishAndReleaseAll();
  }

  @Test
  void smallBodyFromAFileStaysAFileRegion() throws Exception {
    Path file = tempDir.resolve("segment");
    Files.write(file, new byte[100]);
    EmbeddedChannel channel = new EmbeddedChannel(new MessageEncoder(false));

    channel.writeOutbound(FetchDataResponse.ok(9, new FileSegmentManagedBuffer(file, 0, 100)));

    ReferenceCountUtil.release(channel.readOutbound());
    Object body = channel.readOutbound();
    assertInstanceOf(FileRegion.class, body);
    ReferenceCountUtil.release(body);
    channel.finishAndReleaseAll();
  }

  @Test
  void oneEncoderServesSeveralChannels() {
    MessageEncoder shared = new MessageEncoder(false);
    EmbeddedChannel a = new EmbeddedChannel(shared);
    EmbeddedChannel b = new EmbeddedChannel(shared);
    a.writeOutbound(StatusResponse.ok(1));
    b.writeOutbound(StatusResponse.ok(2));
    ByteBuf fromA = a.readOutbound();
    ByteBuf fromB = b.readOutbound();
    assertEquals(1L, fromA.getLong(5));
    assertEquals(2L, fromB.getLong(5));
    ReferenceCountUtil.release(fromA);
    ReferenceCountUtil.release(fromB);
    a.finishAndReleaseAll();
    b.finishAndReleaseAll();
  }

  /** Declares one byte more than it writes. */
  private static final class MiscountingMessage implements Message {
    @Override
    public MessageType type() {
      return MessageType.STATUS_RESPONSE;
    }

    @Override
    public int encodedLength() {
      return 10;
    }

    @Override
    public void encode(ByteBuf out) {
      out.writeZero(9);
    }
  }

  private static final class MiscountingBodyMessage extends AbstractBodyMessage {
    MiscountingBodyMessage(ManagedBuffer body) {
      super(body);
    }

    @Override
    public MessageType type() {
      return MessageType.FETCH_DATA_RESPONSE;
    }

    @Override
    public int encodedLength() {
      return 4;
    }

    @Override
    public void encode(ByteBuf out) {
      out.writeZero(5);
    }
  }

  /** A body that claims to be as large as a frame can be; never read. */
  private static final class HugeBuffer extends ManagedBuffer {
    private int refCnt = 1;

    @Override
    public long size() {
      return Integer.MAX_VALUE;
    }

    @Override
    public InputStream createInputStream() {
      throw new UnsupportedOperationException();
    }

    @Override
    public ManagedBuffer retain() {
      refCnt++;
      return this;
    }

    @Override
    public ManagedBuffer release() {
      refCnt--;
      return this;
    }

    @Override
    public int refCnt() {
      return refCnt;
    }

    @Override
    public Object convertToNetty() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Object convertToNettyForTls() {
      throw new UnsupportedOperationException();
    }
  }
}
