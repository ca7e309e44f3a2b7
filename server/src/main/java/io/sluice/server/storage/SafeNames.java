package io.sluice.server.storage;

import java.util.regex.Pattern;

/**
 * Checks names that come from clients before they become path components, so that no request can
 * name a file outside the server's directories ("..", separators, NUL) or an unbounded one.
 */
public final class SafeNames {
  static final int MAX_APP_ID_LENGTH = 200;
  private static final Pattern APP_ID =
      Pattern.compile("[A-Za-z0-9._-]{1," + MAX_APP_ID_LENGTH + "}");
  private static final int MAX_ECHOED_CHARS = 64;

  private SafeNames() {}

  /**
   * Returns {@code appId} if it is 1 to {@value #MAX_APP_ID_LENGTH} characters of {@code
   * [A-Za-z0-9._-]} and neither "." nor "..".
   *
   * @throws IllegalArgumentException otherwise, naming the rule that was broken
   */
  public static String checkAppId(String appId) {
    if (appId == null) {
      throw new IllegalArgumentException("application id is missing");
    }
    if (appId.isEmpty() || appId.length() > MAX_APP_ID_LENGTH) {
      throw new IllegalArgumentException(
          "invalid application id "
              + quote(appId)
              + ": must be 1 to "
              + MAX_APP_ID_LENGTH
              + " characters long, is "
              + appId.length());
    }
    if (appId.equals(".") || appId.equals("..")) {
      throw new IllegalArgumentException(
          "invalid application id " + quote(appId) + ": \".\" and \"..\" are not allowed");
    }
    if (!APP_ID.matcher(appId).matches()) {
      throw new IllegalArgumentException(
          "invalid application id "
              + quote(appId)
              + ": only letters, digits, '.', '_' and '-' are allowed");
    }
    return appId;
  }

  /** True if {@link #checkAppId} accepts {@code name}. */
  public static boolean isValidAppId(String name) {
    return name != null
        && APP_ID.matcher(name).matches()
        && !name.equals(".")
        && !name.equals("..");
  }

  /** The name for a log line or error message: shortened, control characters escaped. */
  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    int shown = Math.min(s.length(), MAX_ECHOED_CHARS);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (shown < s.length()) {
      out.append("...");
    }
    return out.append('"').toString();
  }
}
