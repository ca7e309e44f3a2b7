package io.sluice.common.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Turns raw settings into a {@link SluiceConf}, checking everything and reporting every problem at
 * once: each value against its option, unknown keys (with the known key probably meant), required
 * options left unset, then each set's cross-option checks.
 */
final class ConfAssembler {
  private ConfAssembler() {}

  /**
   * @param settings the values, at most one per key, in the order errors should be listed
   * @param problems problems found before (while reading a file), listed first
   * @throws ConfigException listing every problem, one per line
   */
  static SluiceConf assemble(
      List<RawSetting> settings,
      Collection<? extends ConfigOptionSet> known,
      List<String> problems) {
    Map<String, ConfigOption<?>> options = OptionIndex.of(known);
    List<String> errors = new ArrayList<>(problems);
    Map<String, SluiceConf.Setting> accepted = new TreeMap<>();
    for (RawSetting raw : settings) {
      ConfigOption<?> option = options.get(raw.key());
      if (option == null) {
        errors.add(unknownKey(raw, options.keySet()));
        continue;
      }
      try {
        Object value = option.parse(raw.value(), raw.location());
        accepted.put(raw.key(), new SluiceConf.Setting(option, raw.value(), value));
      } catch (ConfigException e) {
        errors.add(e.getMessage());
      }
    }
    Set<String> givenKeys = settings.stream().map(RawSetting::key).collect(Collectors.toSet());
    for (ConfigOption<?> option : options.values()) {
      if (option.isRequired() && !givenKeys.contains(option.key())) {
        errors.add(
            "Missing value for required '"
                + option.key()
                + "': expected "
                + option.acceptedForm()
                + ".");
      }
    }
    if (!errors.isEmpty()) {
      // Cross-option checks would only repeat these errors or trip over the values they name.
      throw new ConfigException(String.join("\n", errors));
    }
    SluiceConf conf = new SluiceConf(accepted);
    for (ConfigOptionSet set : known) {
      try {
        set.validate(conf);
      } catch (ConfigException e) {
        errors.add(e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      throw new ConfigException(String.join("\n", errors));
    }
    return conf;
  }

  private static String unknownKey(RawSetting raw, Collection<String> knownKeys) {
    String message = "Unknown key '" + raw.key() + "'" + raw.where() + ".";
    return KeySuggester.suggest(raw.key(), knownKeys)
        .map(suggestion -> message + " Did you mean '" + suggestion + "'?")
        .orElse(message);
  }
}
