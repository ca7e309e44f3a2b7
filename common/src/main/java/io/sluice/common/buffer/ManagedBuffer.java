package io.sluice.common.buffer;

import java.io.IOException;
import java.io.InputStream;

/**
 * An immutable, reference-counted view of shuffle bytes: either memory (a Netty {@code ByteBuf}) or
 * a segment of a file. Bodies of wire messages travel as managed buffers so that shuffle bytes are
 * never copied onto the heap on the way through: a memory buffer is written as a {@code ByteBuf}, a
 * file segment as a {@code DefaultFileRegion} (sendfile), or as a {@code ChunkedInput} when TLS is
 * on.
 *
 * <p>Ownership: whoever creates a managed buffer holds one reference. Handing it to {@code
 * Channel.write} (inside a message) transfers that reference to the channel, which releases it once
 * written. Anyone who keeps a buffer beyond the call that gave it to them must {@link #retain()}.
 */
public abstract class ManagedBuffer {

  /** Number of bytes of data. */
  public abstract long size();

  /** An input stream over the data; closing it does not release this buffer. */
  public abstract InputStream createInputStream() throws IOException;

  /** Adds a reference; returns this. */
  public abstract ManagedBuffer retain();

  /** Drops a reference; the underlying memory or file handle is freed when none are left. */
  public abstract ManagedBuffer release();

  /** Current reference count (0 once freed). */
  public abstract int refCnt();

  /**
   * Converts into an object a Netty channel can write without copying: a {@code ByteBuf} or a
   * {@code FileRegion}. The returned object owns one reference of this buffer: the channel releases
   * it after writing. Call once per write.
   */
  public abstract Object convertToNetty() throws IOException;

  /**
   * Like {@link #convertToNetty()} but for pipelines with TLS, where a {@code FileRegion} cannot
   * pass through the {@code SslHandler}: file segments become a {@code ChunkedInput} for {@code
   * ChunkedWriteHandler}.
   */
  public abstract Object convertToNettyForTls() throws IOException;
}
