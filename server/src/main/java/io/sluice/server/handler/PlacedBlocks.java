package io.sluice.server.handler;

import io.netty.buffer.ByteBuf;
import io.sluice.common.buffer.ManagedBuffer;
import io.sluice.server.memory.PushBufferPool;
import java.io.InputStream;

/**
 * The body of a push received straight into the push pool ({@link PushPlacer}): its blocks'
 * buffers, written by the socket, and the CRC32C of each as it arrived. Owns them until {@link
 * PushHandler} takes them; released before that (the push was refused before its handler saw it),
 * it frees them into the pool. Used on the connection's event loop only.
 */
final class PlacedBlocks extends ManagedBuffer {
  private final PushBufferPool pool;
  private final long size;
  private final int[] crcs;
  private ByteBuf[] blocks;
  private int refCnt = 1;

  PlacedBlocks(PushBufferPool pool, ByteBuf[] blocks, int[] crcs, long size) {
    this.pool = pool;
    this.blocks = blocks;
    this.crcs = crcs;
    this.size = size;
  }

  /** The CRC32C of each block's bytes as they arrived. */
  int[] crcs() {
    return crcs;
  }

  /** Hands the blocks over: the caller frees them into the pool from now on. */
  ByteBuf[] take() {
    ByteBuf[] taken = blocks;
    blocks = null;
    if (taken == null) {
      throw new IllegalStateException("the placed blocks were taken or freed already");
    }
    return taken;
  }

  /** Frees the blocks, if they were not taken. */
  void free() {
    if (blocks != null) {
      for (ByteBuf block : blocks) {
        pool.free(block);
      }
      blocks = null;
    }
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public InputStream createInputStream() {
    throw new UnsupportedOperationException("a placed push body is read by its handler only");
  }

  @Override
  public ManagedBuffer retain() {
    if (refCnt <= 0) {
      throw new IllegalStateException("retained after its release");
    }
    refCnt++;
    return this;
  }

  @Override
  public ManagedBuffer release() {
    if (refCnt <= 0) {
      throw new IllegalStateException("released more often than retained");
    }
    if (--refCnt == 0) {
      free();
    }
    return this;
  }

  @Override
  public int refCnt() {
    return refCnt;
  }

  @Override
  public Object convertToNetty() {
    throw new UnsupportedOperationException("a placed push body is not sent on");
  }

  @Override
  public Object convertToNettyForTls() {
    throw new UnsupportedOperationException("a placed push body is not sent on");
  }
}
