package io.sluice.common.metrics;

import java.util.Collection;
import java.util.Map;

/**
 * Renders plain Java values as JSON for the daemons' {@code /status} pages: maps (as objects),
 * collections and arrays of those, strings, numbers, booleans, enums and null. Small on purpose:
 * status pages are built from records of our own.
 */
public final class Json {
  private Json() {}

  public static String write(Object value) {
    StringBuilder sb = new StringBuilder(256);
    write(value, sb);
    return sb.toString();
  }

  private static void write(Object value, StringBuilder sb) {
    if (value == null) {
      sb.append("null");
    } else if (value instanceof Map<?, ?> map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        string(String.valueOf(e.getKey()), sb);
        sb.append(':');
        write(e.getValue(), sb);
      }
      sb.append('}');
    } else if (value instanceof Collection<?> list) {
      sb.append('[');
      boolean first = true;
      for (Object o : list) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        write(o, sb);
      }
      sb.append(']');
    } else if (value instanceof Object[] array) {
      write(java.util.Arrays.asList(array), sb);
    } else if (value instanceof Number || value instanceof Boolean) {
      double d = value instanceof Number n ? n.doubleValue() : 0;
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        sb.append("null");
      } else {
        sb.append(value);
      }
    } else {
      string(value instanceof Enum<?> e ? e.name() : value.toString(), sb);
    }
  }

  private static void string(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
