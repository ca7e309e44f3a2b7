package io.sluice.common.coordinator;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Where a coordinator listens: {@code host:port}, or {@code [ipv6]:port}.
 *
 * @param host a host name or address, without brackets
 * @param port 1..65535
 */
public record CoordinatorAddress(String host, int port) {

  public CoordinatorAddress {
    Objects.requireNonNull(host, "host");
    if (host.isEmpty()) {
      throw new IllegalArgumentException("a coordinator address needs a host");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("coordinator port " + port + " is not in 1..65535");
    }
  }

  /**
   * Reads one {@code host:port} entry.
   *
   * @param source what the entry comes from (a setting's key), for the error message
   * @throws IllegalArgumentException saying what is wrong with the entry and how to write it
   */
  public static CoordinatorAddress parse(String entry, String source) {
    String text = entry == null ? "" : entry.strip();
    if (text.isEmpty()) {
      throw bad(entry, source, "it is empty");
    }
    String host;
    String portText;
    if (text.startsWith("[")) {
      int close = text.indexOf(']');
      if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
        throw bad(entry, source, "an IPv6 address must be followed by ]:port");
      }
      host = text.substring(1, close);
      portText = text.substring(close + 2);
    } else {
      int colon = text.lastIndexOf(':');
      if (colon < 0) {
        throw bad(entry, source, "it has no port");
      }
      if (text.indexOf(':') != colon) {
        throw bad(entry, source, "write an IPv6 address in brackets, as [::1]:19997");
      }
      host = text.substring(0, colon);
      portText = text.substring(colon + 1);
    }
    if (host.isEmpty()) {
      throw bad(entry, source, "it has no host");
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (Character.isWhitespace(c) || Character.isISOControl(c) || c == '/') {
        throw bad(entry, source, "the host contains '" + c + "'");
      }
    }
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      throw bad(entry, source, "port '" + portText + "' is not a number");
    }
    if (port < 1 || port > 65535) {
      throw bad(entry, source, "port " + port + " is not in 1..65535");
    }
    return new CoordinatorAddress(host, port);
  }

  /**
   * Reads a list of entries (the elements of a list setting), in order.
   *
   * @throws IllegalArgumentException for an empty list, a bad entry, or one listed twice
   */
  public static List<CoordinatorAddress> parseList(List<String> entries, String source) {
    if (entries == null || entries.isEmpty()) {
      throw new IllegalArgumentException(
          "No coordinator listed in " + source + ": give one or more as host:port,host:port");
    }
    List<CoordinatorAddress> addresses = new ArrayList<>(entries.size());
    Set<CoordinatorAddress> seen = new HashSet<>();
    for (String entry : entries) {
      CoordinatorAddress address = parse(entry, source);
      if (!seen.add(address)) {
        throw new IllegalArgumentException(
            "Coordinator " + address + " is listed twice in " + source);
      }
      addresses.add(address);
    }
    return List.copyOf(addresses);
  }

  /** Reads a comma-separated list such as {@code a:19997,b:19997}. */
  public static List<CoordinatorAddress> parseList(String commaSeparated, String source) {
    List<String> entries = new ArrayList<>();
    if (commaSeparated != null && !commaSeparated.isBlank()) {
      for (String entry : commaSeparated.split(",", -1)) {
        entries.add(entry);
      }
    }
    return parseList(entries, source);
  }

  private static IllegalArgumentException bad(String entry, String source, String problem) {
    return new IllegalArgumentException(
        "Invalid coordinator address '"
            + entry
            + "' in "
            + source
            + ": "
            + problem
            + "; write host:port, e.g. coordinator1:19997");
  }

  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
