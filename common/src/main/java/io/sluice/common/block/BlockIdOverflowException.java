package io.sluice.common.block;

/**
 * A value does not fit its field of a {@link BlockIdLayout}: a map task cut more blocks for one
 * partition than the sequence field holds, or a shuffle has more partitions than the partition field
 * holds. The message names the limit, the value and the setting that raises the limit.
 */
public final class BlockIdOverflowException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public BlockIdOverflowException(String message) {
    super(message);
  }
}
