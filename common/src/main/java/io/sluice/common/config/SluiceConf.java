package io.sluice.common.config;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A checked configuration: the values set explicitly, each already parsed by its option. Immutable
 * and thread-safe. Build one with {@link #of}, {@link ConfigLoader#load} or {@link
 * ConfigLoader#fromMap}; read it with {@link #get(ConfigOption)}.
 */
public final class SluiceConf {
  private static final SluiceConf EMPTY = new SluiceConf(Map.of());

  /** A value as written, and as parsed by {@code option}. */
  record Setting(ConfigOption<?> option, String raw, Object value) {}

  private final Map<String, Setting> settings;

  SluiceConf(Map<String, Setting> settings) {
    this.settings = Collections.unmodifiableMap(new TreeMap<>(settings));
  }

  /** A configuration with nothing set: every option has its default. */
  public static SluiceConf empty() {
    return EMPTY;
  }

  /**
   * Checks {@code raw} against the options of {@code known}: every value is parsed and validated,
   * every key must belong to one of the sets, required options must be set, and each set's {@link
   * ConfigOptionSet#validate} must pass.
   *
   * @throws ConfigException listing every problem, one per line
   */
  public static SluiceConf of(Map<String, String> raw, Collection<ConfigOptionSet> known) {
    return ConfAssembler.assemble(fromMap(raw), known, List.of());
  }

  /** The value, or the option's default when unset. */
  public <T> T get(ConfigOption<T> option) {
    return getOptional(option)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "No value for '"
                        + option.key()
                        + "', which has no default: set it in the configuration"));
  }

  /** The value, or the default when unset; empty only when unset and without default. */
  public <T> Optional<T> getOptional(ConfigOption<T> option) {
    Setting setting = settings.get(option.key());
    if (setting == null) {
      return option.hasDefault() ? Optional.of(option.defaultValue()) : Optional.empty();
    }
    if (setting.option() != option) {
      throw new IllegalArgumentException(
          "'"
              + option.key()
              + "' is declared twice: the value was "
              + "checked by another option object than the one read");
    }
    @SuppressWarnings("unchecked")
    T value = (T) setting.value();
    return Optional.of(value);
  }

  /** Whether the configuration sets the option explicitly (to any value, the default included). */
  public boolean isSet(ConfigOption<?> option) {
    return settings.containsKey(option.key());
  }

  /**
   * A copy with one value set or replaced. The value is parsed and validated; the sets'
   * cross-option checks are not run again, so that a test can change related values one at a time.
   *
   * @throws ConfigException when the value is invalid
   */
  public SluiceConf with(ConfigOption<?> option, String value) {
    Map<String, Setting> copy = new TreeMap<>(settings);
    copy.put(option.key(), new Setting(option, value, option.parse(value)));
    return new SluiceConf(copy);
  }

  /** The values set explicitly, as written, by key in alphabetical order. */
  public Map<String, String> toMap() {
    Map<String, String> raw = new LinkedHashMap<>();
    settings.forEach((key, setting) -> raw.put(key, setting.raw()));
    return Collections.unmodifiableMap(raw);
  }

  /** The keys set explicitly (values are left out: some are secrets). */
  @Override
  public String toString() {
    return "SluiceConf" + settings.keySet();
  }

  private static List<RawSetting> fromMap(Map<String, String> raw) {
    return raw.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> new RawSetting(e.getKey(), e.getValue(), null))
        .toList();
  }
}
