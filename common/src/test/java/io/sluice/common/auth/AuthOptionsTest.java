package io.sluice.common.auth;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigOption;
import io.sluice.common.config.ConfigOptionSet;
import io.sluice.common.config.SluiceConf;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthOptionsTest {
  private static final ConfigOption<String> BIND_HOST =
      ConfigOption.string("test.bind.host")
          .defaultValue("127.0.0.1")
          .doc("where the test daemon listens")
          .build();

  private static final ConfigOptionSet DAEMON =
      new ConfigOptionSet() {
        @Override
        public String title() {
          return "Test daemon";
        }

        @Override
        public String description() {
          return "";
        }

        @Override
        public List<ConfigOption<?>> options() {
          return List.of(BIND_HOST);
        }
      };

  private static SluiceConf conf(String bindHost, String... keysAndValues) {
    Map<String, String> raw = new HashMap<>();
    raw.put(BIND_HOST.key(), bindHost);
    for (int i = 0; i < keysAndValues.length; i += 2) {
      raw.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return SluiceConf.of(raw, List.of(DAEMON, new AuthOptions()));
  }

  private static void check(SluiceConf conf) {
    AuthOptions.refuseUnauthenticatedOffLoopback(conf, BIND_HOST);
  }

  @Test
  void aLoopbackDaemonMayRunWithoutAuthentication() {
    for (String host : List.of("127.0.0.1", "127.0.0.2", "localhost", "::1")) {
      assertDoesNotThrow(() -> check(conf(host)), host);
    }
  }

  @Test
  void offLoopbackWithoutAuthenticationTheDaemonIsRefusedNamingWhatToSet() {
    for (String host : List.of("0.0.0.0", "::", "10.1.2.3", "no-such-host.invalid")) {
      ConfigException e = assertThrows(ConfigException.class, () -> check(conf(host)), host);
      assertEquals(
          "'test.bind.host' is "
              + host
              + ", not a loopback address, and "
              + "authentication is off: anyone who reaches this daemon could read and delete every "
              + "application's shuffle data. Set 'auth.enabled' true (with "
              + "'auth.cluster.secret.file', docs/security.md), or bind a loopback address, or set "
              + "'auth.insecure.unauthenticated.off.loopback' true to accept the risk.",
          e.getMessage());
    }
  }

  @Test
  void authenticationOrTheNamedRiskLetsItListenOffLoopback() {
    assertDoesNotThrow(
        () ->
            check(
                conf(
                    "0.0.0.0",
                    "auth.enabled",
                    "true",
                    "auth.cluster.secret.file",
                    "/etc/sluice/cluster.secret")));
    assertDoesNotThrow(
        () -> check(conf("0.0.0.0", "auth.insecure.unauthenticated.off.loopback", "true")));
  }
}
