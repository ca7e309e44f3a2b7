package io.sluice.server;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Configurations for servers under test: ephemeral loopback ports, temp dirs. */
final class TestServers {
  private TestServers() {}

  static SluiceConf conf(Path dir, Map<String, String> overrides) {
    Map<String, String> raw = new HashMap<>();
    raw.put(ServerOptions.BIND_HOST.key(), "127.0.0.1");
    raw.put(ServerOptions.PORT.key(), "0");
    raw.put(ServerOptions.HTTP_PORT.key(), "0");
    raw.put(ServerOptions.LOCAL_DIRS.key(), dir.resolve("d1") + "," + dir.resolve("d2"));
    raw.put(ServerOptions.DISK_MIN_FREE.key(), "0");
    raw.putAll(overrides);
    return ConfigLoader.fromMap(raw, ConfigDocGenerator.discover());
  }
}
