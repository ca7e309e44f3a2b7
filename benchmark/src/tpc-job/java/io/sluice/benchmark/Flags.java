package io.sluice.benchmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads a benchmark's command line, flag by flag: {@link #next()} gives the next flag and the typed
 * readers take its value. Every error names the flag and ends with the benchmark's usage text. The
 * one command-line parser of every benchmark and of the TPC job.
 */
public final class Flags {
  private final String[] args;
  private final String usage;
  private int position;

  public Flags(String[] args, String usage) {
    this.args = args.clone();
    this.usage = usage;
  }

  /**
   * The settings {@code parse} makes of the command line; prints the usage and exits with 0 on
   * {@code --help}, and prints the error and exits with 2 when the command line is wrong.
   */
  public static <T> T parseOrExit(String[] args, String usage, Function<String[], T> parse) {
    if (List.of(args).contains("--help")) {
      System.out.println(usage);
      System.exit(0);
    }
    try {
      return parse.apply(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      throw e;
    }
  }

  /**
   * The values of the flags named in {@code names} (without their leading {@code --}), by name, as
   * {@link #named} reads each; the unknown-flag error for any other. For {@link #parseOrExit}.
   */
  public static Map<String, String> values(String[] args, String usage, List<String> names) {
    Flags flags = new Flags(args, usage);
    Map<String, String> values = new LinkedHashMap<>();
    while (flags.hasNext()) {
      flags.named(flags.next(), names, values);
    }
    return values;
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

  /** A path, or null for {@code -} (as in {@code --output -}: print only). */
  public Path pathOrNone(String flag) {
    String text = value(flag);
    return text.equals("-") ? null : Path.of(text);
  }

  /** A {@code key=value} value, put into {@code into}. */
  public void keyValue(String flag, Map<String, String> into) {
    String text = value(flag);
    int eq = text.indexOf('=');
    if (eq <= 0) {
      throw error(flag + " takes key=value, got '" + text + "'");
    }
    into.put(text.substring(0, eq), text.substring(eq + 1));
  }

  /**
   * The value of a flag named in {@code names} (without its leading {@code --}), put into {@code
   * into} under that name; the unknown-flag error for any other.
   */
  public void named(String flag, List<String> names, Map<String, String> into) {
    if (!flag.startsWith("--") || !names.contains(flag.substring(2))) {
      throw unknown(flag);
    }
    into.put(flag.substring(2), value(flag));
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
