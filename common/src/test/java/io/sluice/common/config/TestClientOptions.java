package io.sluice.common.config;

import java.util.List;

/** A second test-only option set: a required option and an optional one without default. */
public final class TestClientOptions implements ConfigOptionSet {
  public static final String TITLE = "Test client";

  public static final ConfigOption<List<String>> COORDINATORS =
      ConfigOption.list("client.coordinators").doc("Coordinator addresses, host:port.").build();

  public static final ConfigOption<String> APP_SECRET =
      ConfigOption.string("client.app-secret")
          .noDefault()
          .doc("Shared secret of the application | when TLS is on.")
          .build();

  @Override
  public String title() {
    return TITLE;
  }

  @Override
  public String description() {
    return "Options of a made-up client,\n  for tests.";
  }

  @Override
  public List<ConfigOption<?>> options() {
    return List.of(COORDINATORS, APP_SECRET);
  }
}
