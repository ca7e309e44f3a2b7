package io.sluice.common.text;

/** Text for the HTML pages Sluice renders (the coordinator's cluster page, the Spark UI tab). */
public final class Html {
  private Html() {}

  /** Escapes a value for element text and for attribute values in double or single quotes. */
  public static String escape(Object value) {
    String s = String.valueOf(value);
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
