package io.sluice.benchmark;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a benchmark's command line, flag by flag: {@link #next()} gives the next flag and the typed
 * readers take its value. Every error names the flag and ends with the benchmark's usage text.
 */
public final class Flags {
  private final String[] args;
  private final String usage;
  private int position;

  public Flags(String[] args, String usage) {
    this.args = args.clone();
    this.usage = usage;
  }

  public boolean hasNext() {
    return position < args.length;
  }

  /** The next flag. */
  public String next() {
    return args[position++];
  }

  /** The value that follows {@code flag}. */
  public String value(String flag) {
    if (position >= args.length) {
      throw error(flag + " needs a value");
    }
    return args[position++];
  }

  /** A whole number of at least 1. */
  public int positive(String flag) {
    return positive(flag, value(flag));
  }

  /** A whole number of at least 0. */
  public int nonNegative(String flag) {
    String text = value(flag);
    int n = number(flag, text);
    if (n < 0) {
      throw error(flag + " must not be negative, got " + text);
    }
    return n;
  }

  /** Comma-separated whole numbers from 1 to {@code max}, without repeats, in the order given. */
  public List<Integer> positiveList(String flag, int max) {
    List<Integer> values = new ArrayList<>();
    for (String part : value(flag).split(",")) {
      int n = positive(flag, part);
      if (n > max) {
        throw error(flag + " takes values up to " + max + ", got " + n);
      }
      if (!values.contains(n)) {
        values.add(n);
      }
    }
    return List.copyOf(values);
  }

  /** The error for a flag the benchmark does not know. */
  public IllegalArgumentException unknown(String flag) {
    return error("unknown flag '" + flag + "'");
  }

  private int positive(String flag, String text) {
    int n = number(flag, text);
    if (n < 1) {
      throw error(flag + " must be at least 1, got " + text);
    }
    return n;
  }

  private int number(String flag, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw error(flag + " takes a whole number, got '" + text + "'");
    }
  }

  private IllegalArgumentException error(String message) {
    return new IllegalArgumentException(message + "\n" + usage);
  }
}
