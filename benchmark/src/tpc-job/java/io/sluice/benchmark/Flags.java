package io.sluice.benchmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The one command-line parser of every benchmark and of the benchmarks' Spark jobs. A program
 * declares its flags once, each with its value's name, its default and its help; the usage text is
 * made from them, and {@link #parse} gives the {@link Values}, whose typed readers check each value
 * and name the flag in every error, followed by the usage.
 */
public final class Flags {
  private static final int WIDTH = 80;
  private static final int MAX_NAME_COLUMN = 28;

  private final String synopsis;
  private final Map<String, Flag> flags = new LinkedHashMap<>();

  /**
   * @param name how the flag is written, without its leading {@code --}
   * @param value the name of its value in the usage; null for a switch, which takes none
   * @param defaultValue what the flag means when it is not given; null for none
   * @param pairs whether it takes {@code key=value} and may be repeated
   */
  private record Flag(String name, String value, String defaultValue, boolean pairs, String help) {
    String left() {
      return "  --" + name + (value == null ? "" : " " + value);
    }
  }

  /** Flags of a program whose usage starts with {@code synopsis} ("Usage: ..."). */
  public Flags(String synopsis) {
    this.synopsis = synopsis;
  }

  /** A flag with a value; {@code defaultValue} (null for none) is stated in the usage. */
  public Flags option(String name, String value, String defaultValue, String help) {
    return add(new Flag(name, value, defaultValue, false, help));
  }

  /** A flag with a value and no default. */
  public Flags option(String name, String value, String help) {
    return option(name, value, null, help);
  }

  /** A flag without a value: on when given. */
  public Flags toggle(String name, String help) {
    return add(new Flag(name, null, null, false, help));
  }

  /** A repeatable flag whose values are {@code key=value}. */
  public Flags pairs(String name, String help) {
    return add(new Flag(name, "k=v", null, true, help));
  }

  private Flags add(Flag flag) {
    if (flags.putIfAbsent(flag.name(), flag) != null) {
      throw new IllegalStateException("--" + flag.name() + " declared twice");
    }
    return this;
  }

  /** The usage text: the synopsis, then every flag with its help, wrapped. */
  public String usage() {
    int column =
        Math.min(
            MAX_NAME_COLUMN,
            flags.values().stream().mapToInt(f -> f.left().length()).max().orElse(0) + 2);
    StringBuilder text = new StringBuilder(synopsis);
    for (Flag flag : flags.values()) {
      String help =
          flag.defaultValue() == null
              ? flag.help()
              : flag.help() + " (default " + flag.defaultValue() + ")";
      text.append('\n').append(flag.left());
      int length = flag.left().length();
      if (length + 1 > column) {
        text.append('\n');
        length = 0;
      }
      for (String word : help.split(" ")) {
        if (length < column) {
          text.append(" ".repeat(column - length));
          length = column;
        } else if (length + 1 + word.length() > WIDTH) {
          text.append('\n').append(" ".repeat(column));
          length = column;
        } else {
          text.append(' ');
          length++;
        }
        text.append(word);
        length += word.length();
      }
    }
    return text.toString();
  }

  /** The values of {@code args}, or the error of the first flag that is wrong. */
  public Values parse(String[] args) {
    Values values = new Values(String.join(" ", args));
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      Flag flag = arg.startsWith("--") ? flags.get(arg.substring(2)) : null;
      if (flag == null) {
        throw error("unknown flag '" + arg + "'");
      }
      if (flag.value() == null) {
        values.toggles.add(flag.name());
        continue;
      }
      if (i + 1 >= args.length) {
        throw error(arg + " needs a value");
      }
      String value = args[++i];
      if (flag.pairs()) {
        int eq = value.indexOf('=');
        if (eq <= 0) {
          throw error(arg + " takes key=value, got '" + value + "'");
        }
        values
            .pairs
            .computeIfAbsent(flag.name(), n -> new LinkedHashMap<>())
            .put(value.substring(0, eq), value.substring(eq + 1));
      } else {
        values.given.put(flag.name(), value);
      }
    }
    return values;
  }

  /**
   * {@link #parse}, for a {@code main}: prints the usage and exits with 0 on {@code --help}; when
   * the command line is wrong, then or when a value is read, prints the error and exits with 2.
   */
  public Values parseOrExit(String[] args) {
    if (List.of(args).contains("--help")) {
      System.out.println(usage());
      System.exit(0);
    }
    try {
      Values values = parse(args);
      values.exitOnError = true;
      return values;
    } catch (IllegalArgumentException e) {
      throw exit(e);
    }
  }

  /** {@link #parseOrExit(String[])} made into settings; their errors exit with 2 as well. */
  public <T> T parseOrExit(String[] args, Function<Values, T> settings) {
    Values values = parseOrExit(args);
    try {
      return settings.apply(values);
    } catch (IllegalArgumentException e) {
      throw exit(e);
    }
  }

  private static IllegalArgumentException exit(IllegalArgumentException e) {
    System.err.println(e.getMessage());
    System.exit(2);
    return e;
  }

  /** An error about the command line: {@code message}, then the usage. */
  public IllegalArgumentException error(String message) {
    return new IllegalArgumentException(message + "\n" + usage());
  }

  /** A command line's values, read by type; each reader takes a declared flag's name. */
  public final class Values {
    private final Map<String, String> given = new LinkedHashMap<>();
    private final Set<String> toggles = new HashSet<>();
    private final Map<String, Map<String, String>> pairs = new LinkedHashMap<>();

    private final String arguments;
    private boolean exitOnError;

    private Values(String arguments) {
      this.arguments = arguments;
    }

    /** The command line as given, for a report's default command. */
    public String arguments() {
      return arguments;
    }

    /** The flag's value as given, else its default; null when it has neither. */
    public String text(String name) {
      return given.getOrDefault(name, declared(name).defaultValue());
    }

    /** The flag's value as given, else {@code fallback} (for a default that depends on others). */
    public String text(String name, String fallback) {
      String text = text(name);
      return text == null ? fallback : text;
    }

    /** The flag's value, which must be given or have a default. */
    public String required(String name) {
      String text = text(name);
      if (text == null) {
        throw error("--" + name + " is required");
      }
      return text;
    }

    /**
     * The flag's value made by {@code parse} (which throws IllegalArgumentException, saying what it
     * takes, for a value it cannot take).
     */
    public <T> T as(String name, Function<String, T> parse) {
      String text = required(name);
      try {
        return parse.apply(text);
      } catch (IllegalArgumentException e) {
        throw error("--" + name + ": " + e.getMessage());
      }
    }

    /** An error about a value: {@code message}, then the usage; exits if the parse would. */
    public IllegalArgumentException error(String message) {
      IllegalArgumentException e = Flags.this.error(message);
      return exitOnError ? exit(e) : e;
    }

    /** Whether the flag was given (a switch: whether it is on). */
    public boolean given(String name) {
      declared(name);
      return given.containsKey(name) || toggles.contains(name) || pairs.containsKey(name);
    }

    /** A whole number of at least 1. */
    public int positive(String name) {
      return positive(name, required(name));
    }

    /** A whole number of at least 0. */
    public int nonNegative(String name) {
      String text = required(name);
      int n = number(name, text);
      if (n < 0) {
        throw error("--" + name + " must not be negative, got " + text);
      }
      return n;
    }

    /** A whole number of at least 1, up to {@link Long#MAX_VALUE}. */
    public long positiveLong(String name) {
      String text = required(name);
      try {
        long n = Long.parseLong(text.trim());
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException e) {
        // The error below names the flag.
      }
      throw error("--" + name + " takes a whole number of at least 1, got '" + text + "'");
    }

    /** Comma-separated whole numbers from 1 to {@code max}, without repeats, in the order given. */
    public List<Integer> positiveList(String name, int max) {
      List<Integer> values = new ArrayList<>();
      for (String part : required(name).split(",")) {
        int n = positive(name, part);
        if (n > max) {
          throw error("--" + name + " takes values up to " + max + ", got " + n);
        }
        if (!values.contains(n)) {
          values.add(n);
        }
      }
      return List.copyOf(values);
    }

    /** Comma-separated words, trimmed, without repeats, in the order given. */
    public List<String> list(String name) {
      return List.of(required(name).split(",")).stream().map(String::trim).distinct().toList();
    }

    /** A path; null when the flag has neither value nor default. */
    public Path path(String name) {
      String text = text(name);
      return text == null ? null : Path.of(text);
    }

    /** A path, or null for {@code -} (as in {@code --output -}: print only). */
    public Path pathOrNone(String name) {
      String text = text(name);
      return text == null || text.equals("-") ? null : Path.of(text);
    }

    /** {@link #pathOrNone(String)} resolved against {@code base}. */
    public Path pathOrNone(String name, Path base) {
      Path path = pathOrNone(name);
      return path == null ? null : base.resolve(path);
    }

    /** The {@code key=value} values of a repeatable flag, in the order given. */
    public Map<String, String> pairs(String name) {
      declared(name);
      return new LinkedHashMap<>(pairs.getOrDefault(name, Map.of()));
    }

    private Flag declared(String name) {
      Flag flag = flags.get(name);
      if (flag == null) {
        throw new IllegalStateException("--" + name + " is not declared");
      }
      return flag;
    }

    private int positive(String name, String text) {
      int n = number(name, text);
      if (n < 1) {
        throw error("--" + name + " must be at least 1, got " + text);
      }
      return n;
    }

    private int number(String name, String text) {
      try {
        return Integer.parseInt(text.trim());
      } catch (NumberFormatException e) {
        throw error("--" + name + " takes a whole number, got '" + text + "'");
      }
    }
  }
}
