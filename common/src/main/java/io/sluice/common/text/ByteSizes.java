package io.sluice.common.text;

import java.util.Locale;

/** Byte counts as people read them, in binary units. */
public final class ByteSizes {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private ByteSizes() {}

  /** {@code 1023 B}, {@code 1.0 KiB}, {@code 1.5 GiB}: one decimal from KiB on. */
  public static String binary(long bytes) {
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
