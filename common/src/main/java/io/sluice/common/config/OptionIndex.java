package io.sluice.common.config;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of several sets by key. A key defined twice is a programming error, reported at once.
 */
final class OptionIndex {
  private OptionIndex() {}

  /**
   * @throws IllegalStateException when two options (of one set or of two) share a key
   */
  static Map<String, ConfigOption<?>> of(Collection<? extends ConfigOptionSet> sets) {
    Map<String, ConfigOption<?>> byKey = new LinkedHashMap<>();
    Map<String, String> titleByKey = new LinkedHashMap<>();
    for (ConfigOptionSet set : sets) {
      for (ConfigOption<?> option : set.options()) {
        if (option == null) {
          // Happens when the list is built in a static field declared before the options
          // themselves.
          throw new IllegalStateException("'" + set.title() + "' lists a null option");
        }
        String previousTitle = titleByKey.putIfAbsent(option.key(), set.title());
        if (previousTitle != null) {
          throw new IllegalStateException(
              "Option key '"
                  + option.key()
                  + "' is defined twice: in '"
                  + previousTitle
                  + "' and in '"
                  + set.title()
                  + "'");
        }
        byKey.put(option.key(), option);
      }
    }
    return byKey;
  }
}
