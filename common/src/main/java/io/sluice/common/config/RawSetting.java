package io.sluice.common.config;

import java.util.Objects;

/**
 * One key and its value as written, and where it was written ("conf/server.conf, line 3",
 * "override"), or a null location when it came from a map.
 */
record RawSetting(String key, String value, String location) {
  RawSetting {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, () -> "value of '" + key + "'");
  }

  /** " (location)" for a message, or nothing. */
  String where() {
    return location == null ? "" : " (" + location + ")";
  }
}
