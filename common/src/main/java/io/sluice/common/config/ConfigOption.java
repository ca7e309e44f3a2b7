package io.sluice.common.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * One typed configuration key: its kind of value, default, limits, documentation and the version
 * that introduced it. Options are constants of a module's {@link ConfigOptionSet} class, and that
 * is the only place a key or a default is written; {@code docs/configuration.md} is generated from
 * them.
 *
 * <pre>{@code
 * public static final ConfigOption<Long> BUFFER_CAPACITY = ConfigOption.bytes("buffer.capacity")
 *     .defaultValue("4g").min(1 << 20)
 *     .doc("Off-heap memory for pushed data not yet flushed.")
 *     .build();
 * }</pre>
 *
 * <p>An option has a default, or is declared optional with {@link Builder#noDefault()}, or, with
 * neither, is required: loading a configuration that does not set it fails.
 *
 * @param <T> the type of the value
 */
public final class ConfigOption<T> {
  static final String FIRST_VERSION = "0.1.0";

  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*");

  private final String key;
  private final ValueKind<T> kind;
  private final List<Constraint<T>> constraints;
  private final String acceptedForm;
  private final String doc;
  private final String since;
  private final boolean optional;
  private final String defaultText;
  private final T defaultValue;

  private ConfigOption(Builder<T> builder) {
    this.key = builder.key;
    this.kind = builder.kind;
    this.constraints = builder.constraints();
    StringBuilder form = new StringBuilder(kind.acceptedForm());
    for (Constraint<T> constraint : constraints) {
      form.append(", ").append(constraint.formText());
    }
    this.acceptedForm = form.toString();
    this.doc = builder.doc.trim();
    this.since = builder.since;
    this.optional = builder.noDefault;
    this.defaultText = builder.defaultText == null ? null : builder.defaultText.trim();
    // Parsing the default here makes a bad one fail when the option class is initialised.
    this.defaultValue = defaultText == null ? null : parse(defaultText, "default");
  }

  /**
   * A size in bytes: {@code 512}, {@code 64k}, {@code 64m}, {@code 1.5g}, {@code 2t} (binary
   * units).
   */
  public static Builder<Long> bytes(String key) {
    return new Builder<>(key, ValueKind.size());
  }

  /**
   * A duration with a unit: {@code 500ms}, {@code 30s}, {@code 5m} or {@code 5min}, {@code 1h},
   * {@code 2d}.
   */
  public static Builder<Duration> duration(String key) {
    return new Builder<>(key, ValueKind.duration());
  }

  public static Builder<Integer> integer(String key) {
    return new Builder<>(key, ValueKind.integer());
  }

  public static Builder<Long> longValue(String key) {
    return new Builder<>(key, ValueKind.longValue());
  }

  public static Builder<Double> doubleValue(String key) {
    return new Builder<>(key, ValueKind.doubleValue());
  }

  /** {@code true} or {@code false}, in any case; nothing else. */
  public static Builder<Boolean> bool(String key) {
    return new Builder<>(key, ValueKind.bool());
  }

  public static Builder<String> string(String key) {
    return new Builder<>(key, ValueKind.string());
  }

  /** A comma-separated list; entries are trimmed and empty ones dropped. */
  public static Builder<List<String>> list(String key) {
    return new Builder<>(key, ValueKind.list());
  }

  /** The name of one of {@code type}'s constants, in any case. */
  public static <E extends Enum<E>> Builder<E> enumValue(String key, Class<E> type) {
    return new Builder<>(key, ValueKind.enumValue(type));
  }

  public String key() {
    return key;
  }

  public String doc() {
    return doc;
  }

  /**
   * The default as written in the option class, or null when there is none (required or optional).
   */
  public String defaultValueText() {
    return defaultText;
  }

  public boolean hasDefault() {
    return defaultText != null;
  }

  /** The version of Sluice that introduced this key. */
  public String since() {
    return since;
  }

  /** What a value must look like, limits included: "an integer, at least 1, at most 64". */
  public String acceptedForm() {
    return acceptedForm;
  }

  /**
   * Reads and checks a value (surrounding white space ignored).
   *
   * @throws ConfigException naming this key, the value and the accepted form
   */
  public T parse(String raw) {
    return parse(raw, null);
  }

  /**
   * Like {@link #parse(String)}; {@code location} (a file and line, or null) goes into the message.
   */
  T parse(String raw, String location) {
    Objects.requireNonNull(raw, () -> "value of '" + key + "'");
    String text = raw.trim();
    T value;
    try {
      value = kind.parse(text);
    } catch (InvalidValueException e) {
      throw invalid(text, location, e.detail());
    }
    for (Constraint<T> constraint : constraints) {
      if (!constraint.check().test(value)) {
        throw invalid(text, location, constraint.problem());
      }
    }
    return value;
  }

  /** The parsed default; only meaningful when {@link #hasDefault()}. */
  T defaultValue() {
    return defaultValue;
  }

  /** Neither a default nor declared optional: a configuration must set it. */
  boolean isRequired() {
    return defaultText == null && !optional;
  }

  private ConfigException invalid(String text, String location, String problem) {
    StringBuilder message =
        new StringBuilder("Invalid value '")
            .append(text)
            .append("' for '")
            .append(key)
            .append('\'');
    if (location != null) {
      message.append(" (").append(location).append(')');
    }
    message.append(": ");
    if (problem != null) {
      message.append(problem).append("; ");
    }
    return new ConfigException(
        message.append("expected ").append(acceptedForm).append('.').toString());
  }

  @Override
  public String toString() {
    return key;
  }

  /** A check on a parsed value: what the error says when it fails, and how the docs describe it. */
  private record Constraint<T>(Predicate<T> check, String problem, String formText) {}

  /**
   * Declares an option. {@link #build()} checks the declaration itself, so that a mistake (a
   * default of the wrong form, a limit on a string, no doc) fails when the option class is
   * initialised.
   */
  public static final class Builder<T> {
    private final String key;
    private final ValueKind<T> kind;
    private String defaultText;
    private boolean noDefault;
    private String doc;
    private String since = FIRST_VERSION;
    private Constraint<T> min;
    private BigDecimal minLimit;
    private Constraint<T> max;
    private BigDecimal maxLimit;
    private final List<Constraint<T>> checks = new ArrayList<>();

    private Builder(String key, ValueKind<T> kind) {
      Objects.requireNonNull(key, "key");
      if (!KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "Invalid option key '"
                + key
                + "': use letters, digits and single '.', '-' or '_' between them");
      }
      this.key = key;
      this.kind = kind;
    }

    /** The default, written as a user would write it; parsed and checked by {@link #build()}. */
    public Builder<T> defaultValue(String text) {
      this.defaultText = Objects.requireNonNull(text, "default text");
      return this;
    }

    /** The value may be left unset; {@link SluiceConf#getOptional} then returns empty. */
    public Builder<T> noDefault() {
      this.noDefault = true;
      return this;
    }

    public Builder<T> doc(String doc) {
      this.doc = Objects.requireNonNull(doc, "doc");
      return this;
    }

    /** The version that introduced the key; {@value ConfigOption#FIRST_VERSION} when not called. */
    public Builder<T> since(String version) {
      this.since = Objects.requireNonNull(version, "version");
      return this;
    }

    /**
     * The smallest accepted value: a number for numeric options, bytes for sizes, milliseconds for
     * durations.
     */
    public Builder<T> min(long min) {
      return min(BigDecimal.valueOf(min));
    }

    /** The smallest accepted value of a {@link ConfigOption#doubleValue} option. */
    public Builder<T> min(double min) {
      return min(fractionalLimit("min", min));
    }

    /**
     * The largest accepted value: a number for numeric options, bytes for sizes, milliseconds for
     * durations.
     */
    public Builder<T> max(long max) {
      return max(BigDecimal.valueOf(max));
    }

    /** The largest accepted value of a {@link ConfigOption#doubleValue} option. */
    public Builder<T> max(double max) {
      return max(fractionalLimit("max", max));
    }

    /**
     * An extra check on the parsed value. {@code requirement} says what a good value is, as the
     * error message and the docs will show it: "must be a power of two".
     */
    public Builder<T> validate(Predicate<T> check, String requirement) {
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(requirement, "requirement");
      checks.add(new Constraint<>(check, requirement, requirement));
      return this;
    }

    /**
     * @throws IllegalStateException when the declaration is inconsistent (no doc, both a default
     *     and {@code noDefault()}, min above max)
     * @throws ConfigException when the default is not a valid value
     */
    public ConfigOption<T> build() {
      if (doc == null || doc.isBlank()) {
        throw new IllegalStateException("Option '" + key + "' has no doc text");
      }
      if (since.isBlank()) {
        throw new IllegalStateException("Option '" + key + "' has a blank since-version");
      }
      if (defaultText != null && noDefault) {
        throw new IllegalStateException("Option '" + key + "' has both a default and noDefault()");
      }
      if (minLimit != null && maxLimit != null && minLimit.compareTo(maxLimit) > 0) {
        throw new IllegalStateException(
            "Option '"
                + key
                + "' has min "
                + kind.limitText(minLimit)
                + " above max "
                + kind.limitText(maxLimit));
      }
      return new ConfigOption<>(this);
    }

    private List<Constraint<T>> constraints() {
      List<Constraint<T>> all = new ArrayList<>();
      if (min != null) {
        all.add(min);
      }
      if (max != null) {
        all.add(max);
      }
      all.addAll(checks);
      return List.copyOf(all);
    }

    private Builder<T> min(BigDecimal limit) {
      requireOrdered("min");
      String text = kind.limitText(limit);
      this.minLimit = limit;
      this.min =
          new Constraint<>(
              value -> kind.magnitude(value).compareTo(limit) >= 0,
              "must be at least " + text,
              "at least " + text);
      return this;
    }

    private Builder<T> max(BigDecimal limit) {
      requireOrdered("max");
      String text = kind.limitText(limit);
      this.maxLimit = limit;
      this.max =
          new Constraint<>(
              value -> kind.magnitude(value).compareTo(limit) <= 0,
              "must be at most " + text,
              "at most " + text);
      return this;
    }

    private void requireOrdered(String what) {
      if (!kind.isOrdered()) {
        throw new IllegalStateException(
            what
                + "() applies to numbers, sizes and durations, not to '"
                + key
                + "' ("
                + kind.acceptedForm()
                + ")");
      }
    }

    private BigDecimal fractionalLimit(String what, double limit) {
      if (!kind.isFractional()) {
        throw new IllegalStateException(
            what
                + "(double) applies to doubleValue options; use "
                + what
                + "(long) for '"
                + key
                + "'");
      }
      if (!Double.isFinite(limit)) {
        throw new IllegalArgumentException(what + " of '" + key + "' must be finite: " + limit);
      }
      return BigDecimal.valueOf(limit);
    }
  }
}
