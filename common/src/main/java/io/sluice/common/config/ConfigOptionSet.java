package io.sluice.common.config;

import java.util.List;

/**
 * The options of one module (or one daemon's configuration file), with the section of {@code
 * docs/configuration.md} that documents them. Implementations are public classes with a public
 * no-argument constructor that hold their options as {@code public static final} constants, and are
 * listed in the module's {@code META-INF/services/io.sluice.common.config.ConfigOptionSet} so that
 * {@link ConfigDocGenerator#discover()} finds them.
 */
public interface ConfigOptionSet {

  /**
   * The section title in {@code docs/configuration.md}, e.g. "Shuffle server (conf/server.conf)".
   */
  String title();

  /** A paragraph that introduces the section. */
  String description();

  /** The options, in the order the docs list them. */
  List<ConfigOption<?>> options();

  /**
   * Checks that span several options (a low watermark below the high one). Runs once every value
   * has been read and found valid on its own.
   *
   * @throws ConfigException naming the keys concerned
   */
  default void validate(SluiceConf conf) {}
}
