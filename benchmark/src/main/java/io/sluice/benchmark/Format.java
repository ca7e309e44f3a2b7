package io.sluice.benchmark;

import java.util.Locale;

/** The number formats of the benchmarks' logs and reports. */
public final class Format {
  private Format() {}

  public static String mib(double bytes) {
    return String.format(Locale.ROOT, "%,.0f MiB", bytes / (1 << 20));
  }

  /** Bytes per second, in MiB/s. */
  public static String rate(double bytesPerSecond) {
    return String.format(Locale.ROOT, "%,.0f MiB/s", bytesPerSecond / (1 << 20));
  }

  public static String gbit(double bitsPerSecond) {
    return String.format(Locale.ROOT, "%.1f Gbit/s", bitsPerSecond / 1e9);
  }

  /** A whole number with thousands separators. */
  public static String count(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }

  public static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
  }

  public static String percent2(double ratio) {
    return String.format(Locale.ROOT, "%.2f%%", ratio * 100);
  }
}
