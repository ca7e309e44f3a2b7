package io.sluice.server;

import io.sluice.common.config.ConfigException;

/** A {@code host:port} pair from configuration. */
record HostPort(String host, int port) {
  static HostPort parse(String text, String key) {
    int colon = text.lastIndexOf(':');
    try {
      int port = Integer.parseInt(text.substring(colon + 1).trim());
      if (colon <= 0 || port <= 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return new HostPort(text.substring(0, colon).trim(), port);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new ConfigException("Invalid address '" + text + "' in '" + key
          + "': expected host:port, e.g. coordinator-1:19997");
    }
  }
}
