package io.sluice.client.core.codec;

import java.util.Arrays;
import java.util.Locale;

/** The compression codecs a block can be written with. */
public enum CodecKind {
  LZ4,
  ZSTD,
  NONE;

  /** The lower-case name Spark uses for the codec in {@code spark.io.compression.codec}. */
  public String codecName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The kind called {@code name}, in any case.
   *
   * @throws IllegalArgumentException if no codec has that name; the message lists the known ones
   */
  public static CodecKind forName(String name) {
    for (CodecKind kind : values()) {
      if (kind.codecName().equalsIgnoreCase(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown compression codec '"
            + name
            + "'; Sluice supports "
            + Arrays.stream(values()).map(CodecKind::codecName).toList());
  }
}
