package io.sluice.common.protocol;

/**
 * A peer's string as it may appear in a log line: control characters (a NUL, a line break that
 * would start a forged log line, an escape sequence that would drive a terminal) are written as a
 * backslash, {@code u} and four hex digits, and a backslash as two, so that what a client sent can
 * neither break nor fake the daemon's log.
 */
public final class LogText {
  private LogText() {}

  public static String escape(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean plain =
          c != '\\' && !Character.isISOControl(c) && Character.getType(c) != Character.FORMAT;
      if (plain && out == null) {
        continue;
      }
      if (out == null) {
        out = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (plain) {
        out.append(c);
      } else if (c == '\\') {
        out.append("\\\\");
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out == null ? text : out.toString();
  }
}
