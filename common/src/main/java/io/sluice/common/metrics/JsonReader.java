package io.sluice.common.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON that {@link Json} writes (the daemons' {@code /status} and admin answers) back
 * into plain values: objects as {@code Map<String, Object>} in their order, arrays as {@code
 * List<Object>}, strings, numbers (a {@code Long} when integral, else a {@code Double}), booleans
 * and null. Malformed text fails with an {@link IllegalArgumentException} naming where.
 */
public final class JsonReader {
  private final String text;
  private int at;

  private JsonReader(String text) {
    this.text = text;
  }

  public static Object parse(String text) {
    JsonReader reader = new JsonReader(text);
    Object value = reader.value();
    reader.skipSpace();
    if (reader.at != text.length()) {
      throw reader.error("text after the value");
    }
    return value;
  }

  private Object value() {
    skipSpace();
    if (at >= text.length()) {
      throw error("a value is missing");
    }
    char c = text.charAt(at);
    return switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    at++;
    skipSpace();
    if (peek('}')) {
      at++;
      return map;
    }
    while (true) {
      skipSpace();
      if (!peek('"')) {
        throw error("a key in quotes expected");
      }
      String key = string();
      skipSpace();
      expect(':');
      map.put(key, value());
      skipSpace();
      if (peek(',')) {
        at++;
      } else {
        expect('}');
        return map;
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    at++;
    skipSpace();
    if (peek(']')) {
      at++;
      return list;
    }
    while (true) {
      list.add(value());
      skipSpace();
      if (peek(',')) {
        at++;
      } else {
        expect(']');
        return list;
      }
    }
  }

  private String string() {
    StringBuilder out = new StringBuilder();
    at++;
    while (at < text.length()) {
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (at >= text.length()) {
        break;
      }
      char e = text.charAt(at++);
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw error("a \\u escape is cut short");
          }
          try {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException ex) {
            throw error("a \\u escape is not hexadecimal");
          }
          at += 4;
        }
        default -> throw error("unknown escape \\" + e);
      }
    }
    throw error("a string is not closed");
  }

  private Object number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    String n = text.substring(start, at);
    try {
      if (n.matches("-?\\d+")) {
        return Long.parseLong(n);
      }
      return Double.parseDouble(n);
    } catch (NumberFormatException e) {
      at = start;
      throw error("a value expected");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("a value expected");
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw error("'" + c + "' expected");
    }
    at++;
  }

  private boolean peek(char c) {
    return at < text.length() && text.charAt(at) == c;
  }

  private void skipSpace() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("malformed JSON at character " + at + ": " + what);
  }
}
