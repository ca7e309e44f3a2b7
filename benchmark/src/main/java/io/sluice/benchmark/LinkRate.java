package io.sluice.benchmark;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A link's cap in tc's notation ({@code 500kbit}, {@code 100mbit}, {@code 1gbit}). */
public record LinkRate(long bitsPerSecond) {
  private static final Pattern RATE = Pattern.compile("(\\d+)(k|m|g)?bit");
  private static final long[] UNITS = {1_000_000_000L, 1_000_000L, 1_000L};
  private static final String[] UNIT_NAMES = {"gbit", "mbit", "kbit"};

  /** The rate {@code text} states; IllegalArgumentException if tc would not take it. */
  public static LinkRate parse(String text) {
    Matcher m = RATE.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new IllegalArgumentException(
          "takes a rate in tc's notation such as 500mbit or 1gbit, not '" + text + "'");
    }
    long unit =
        m.group(2) == null
            ? 1
            : switch (m.group(2)) {
              case "k" -> 1_000L;
              case "m" -> 1_000_000L;
              default -> 1_000_000_000L;
            };
    return new LinkRate(Long.parseLong(m.group(1)) * unit);
  }

  /** A tenth of this rate: a slow server's link beside the others'. */
  public LinkRate tenth() {
    return new LinkRate(bitsPerSecond / 10);
  }

  /** In tc's notation, in the largest unit that states it exactly. */
  @Override
  public String toString() {
    for (int i = 0; i < UNITS.length; i++) {
      if (bitsPerSecond % UNITS[i] == 0) {
        return bitsPerSecond / UNITS[i] + UNIT_NAMES[i];
      }
    }
    return bitsPerSecond + "bit";
  }
}
