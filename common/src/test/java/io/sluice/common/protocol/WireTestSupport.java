package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.buffer.ManagedBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/** Encoding messages to bytes and feeding bytes through the decoding pipeline, for tests. */
final class WireTestSupport {
  private WireTestSupport() {}

  /**
   * Writes {@code message} through a {@link MessageEncoder} and returns the bytes that would reach
   * the socket. File regions are transferred as a socket would transfer them; with {@code tls}, a
   * {@link ChunkedWriteHandler} turns chunked inputs into buffers. Everything outbound is released.
   */
  static byte[] encode(Message message, boolean tls) {
    EmbeddedChannel channel =
        tls
            ? new EmbeddedChannel(new ChunkedWriteHandler(), new MessageEncoder(true))
            : new EmbeddedChannel(new MessageEncoder(false));
    channel.writeOutbound(message);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Object out;
    while ((out = channel.readOutbound()) != null) {
      try {
        if (out instanceof ByteBuf buf) {
          bytes.writeBytes(ByteBufUtil.getBytes(buf));
        } else if (out instanceof FileRegion region) {
          transfer(region, bytes);
        } else {
          fail("unexpected outbound object " + out);
        }
      } finally {
        ReferenceCountUtil.release(out);
      }
    }
    assertFalse(channel.finish(), "nothing left in the channel");
    return bytes.toByteArray();
  }

  private static void transfer(FileRegion region, ByteArrayOutputStream bytes) {
    try {
      WritableByteChannel target = Channels.newChannel(bytes);
      long transferred = 0;
      while (transferred < region.count()) {
        transferred += region.transferTo(target, transferred);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bytes of a body, read without consuming or releasing it. */
  static byte[] bodyBytes(ManagedBuffer body) {
    try (InputStream in = body.createInputStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A decoding pipeline that records what comes out of it. */
  static EmbeddedChannel decodingChannel(int maxFrameSize, Recorder recorder) {
    return new EmbeddedChannel(new FrameDecoder(maxFrameSize), new MessageDecoder(), recorder);
  }

  /**
   * Feeds {@code bytes} into {@code channel} cut at up to {@code maxCuts} random points, as pooled
   * buffers (heap or direct at random); returns the buffers so the caller can check they were
   * freed.
   */
  static List<ByteBuf> feedSplit(
      EmbeddedChannel channel, byte[] bytes, Random random, int maxCuts) {
    return feed(channel, bytes, randomCuts(bytes.length, random, maxCuts), random);
  }

  /**
   * Up to {@code maxCuts} random cut points in {@code 1..length-1}, sorted, then {@code length}.
   */
  static int[] randomCuts(int length, Random random, int maxCuts) {
    TreeSet<Integer> cuts = new TreeSet<>();
    int wanted = length < 2 ? 0 : random.nextInt(maxCuts + 1);
    for (int i = 0; i < wanted; i++) {
      cuts.add(1 + random.nextInt(length - 1));
    }
    cuts.add(length);
    return cuts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Feeds {@code bytes} as pieces ending at {@code ends}; returns the pieces. */
  static List<ByteBuf> feed(EmbeddedChannel channel, byte[] bytes, int[] ends, Random random) {
    List<ByteBuf> pieces = new ArrayList<>();
    int start = 0;
    for (int end : ends) {
      pieces.add(pooled(random, bytes, start, end - start));
      start = end;
    }
    for (ByteBuf piece : pieces) {
      channel.writeInbound(piece);
    }
    return pieces;
  }

  /** A pooled buffer holding {@code length} bytes of {@code bytes} from {@code offset}. */
  static ByteBuf pooled(Random random, byte[] bytes, int offset, int length) {
    ByteBuf buf =
        random.nextBoolean()
            ? PooledByteBufAllocator.DEFAULT.directBuffer(length)
            : PooledByteBufAllocator.DEFAULT.heapBuffer(length);
    return buf.writeBytes(bytes, offset, length);
  }

  static void assertAllReleased(List<ByteBuf> buffers) {
    for (int i = 0; i < buffers.size(); i++) {
      assertEquals(0, buffers.get(i).refCnt(), "refCnt of buffer " + i + " of " + buffers.size());
    }
  }

  /** Records every message and exception that reaches the end of a pipeline. */
  static final class Recorder extends ChannelInboundHandlerAdapter {
    final List<Object> messages = new ArrayList<>();
    final List<Throwable> errors = new ArrayList<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      messages.add(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      errors.add(cause);
    }

    ProtocolException singleProtocolError() {
      assertEquals(1, errors.size(), "errors: " + errors);
      if (!(errors.get(0) instanceof ProtocolException e)) {
        throw new AssertionError("not a ProtocolException", errors.get(0));
      }
      return e;
    }

    void releaseMessages() {
      for (Object message : messages) {
        ReferenceCountUtil.release(message);
      }
    }
  }
}
