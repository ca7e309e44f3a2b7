package io.sluice.server.handler;

import io.netty.buffer.ByteBuf;
import io.sluice.common.auth.Identity;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.transport.BodyPlacer;
import io.sluice.common.transport.TransportChannel;
import io.sluice.server.memory.PushBufferPool;
import java.util.zip.CRC32C;

/**
 * One connection's offer to receive large pushes straight into the push pool: once a push's header
 * arrived, its blocks' buffers are taken from the pool and the socket reads the blocks into them,
 * so that they are not copied out of the network's receive buffers afterwards (the copy took a
 * seventh of the event loops' CPU under steady ingest). Each block's CRC32C is computed as its
 * bytes arrive, still in the processor's cache; {@link PushHandler} then checks it and keeps the
 * blocks as it keeps copies.
 *
 * <p>Only a push the usual path would admit now is placed: after the connection's handshake, on an
 * authenticated connection only for an application it may act for, for a registered shuffle and
 * partitions, while storage takes data and the pool has room for every block. Anything else, a
 * header that does not decode included, is received as usual and answered there. A placed push
 * holds its blocks while the rest of it arrives, besides its reservation of the receive budget; a
 * connection that closes or stalls past the frame timeout frees them.
 */
final class PushPlacer implements BodyPlacer {
  private final PushHandler pushes;
  private final PushBufferPool pool;
  private final TransportChannel channel;
  private final boolean authRequired;

  PushPlacer(
      PushHandler pushes, PushBufferPool pool, TransportChannel channel, boolean authRequired) {
    this.pushes = pushes;
    this.pool = pool;
    this.channel = channel;
    this.authRequired = authRequired;
  }

  @Override
  public Placement place(ByteBuf frameStart, int frameLength) {
    int start = frameStart.readerIndex();
    if (frameStart.getByte(start) != MessageType.PUSH_DATA_REQUEST.id()
        || channel.protocolVersion() == 0) {
      return null;
    }
    ByteBuf in = frameStart.duplicate();
    in.skipBytes(1);
    PushDataRequest.Header header;
    try {
      header = PushDataRequest.decodeHeader(in);
    } catch (RuntimeException e) {
      // Malformed, or not all here yet: the usual path decodes the whole frame, and refuses it.
      return null;
    }
    int headerLength = in.readerIndex() - start;
    long bodyLength = frameLength - headerLength;
    if (BlockDescriptor.totalLength(header.blocks()) != bodyLength || !mayActFor(header.appId())) {
      return null;
    }
    ByteBuf[] blocks;
    try {
      blocks = pushes.placeBlocks(header);
    } catch (RuntimeException e) {
      // Whatever refuses it now refuses it on the usual path too, where it is answered.
      return null;
    }
    return blocks == null ? null : new PushPlacement(header, headerLength, blocks, bodyLength);
  }

  private boolean mayActFor(String appId) {
    Identity who = channel.identity();
    return who != null ? who.mayActFor(appId) : !authRequired;
  }

  private final class PushPlacement implements Placement {
    private final PushDataRequest.Header header;
    private final int headerLength;
    private final ByteBuf[] blocks;
    private final CRC32C[] crcs;
    private final long bodyLength;

    PushPlacement(
        PushDataRequest.Header header, int headerLength, ByteBuf[] blocks, long bodyLength) {
      this.header = header;
      this.headerLength = headerLength;
      this.blocks = blocks;
      this.crcs = new CRC32C[blocks.length];
      this.bodyLength = bodyLength;
    }

    @Override
    public int headerLength() {
      return headerLength;
    }

    @Override
    public ByteBuf[] buffers() {
      return blocks;
    }

    @Override
    public void arrived(int buffer, int index, int length) {
      if (crcs[buffer] == null) {
        crcs[buffer] = new CRC32C();
      }
      Crc32c.update(crcs[buffer], blocks[buffer], index, length);
    }

    @Override
    public Message complete() {
      int[] received = new int[blocks.length];
      for (int i = 0; i < received.length; i++) {
        received[i] = crcs[i] == null ? Crc32c.of(blocks[i]) : (int) crcs[i].getValue();
      }
      PlacedBlocks body = new PlacedBlocks(pool, blocks, received, bodyLength);
      try {
        return header.withBody(body);
      } catch (RuntimeException e) {
        body.release();
        throw e;
      }
    }

    @Override
    public void abandon() {
      for (ByteBuf block : blocks) {
        pool.free(block);
      }
    }
  }
}
