package io.sluice.common.config;

/**
 * A configuration that cannot be used: a value in the wrong form, an unknown key, a missing
 * required value, or options that contradict each other. The message names every key concerned and
 * the form it accepts; when several problems were found, it lists all of them, one per line.
 */
public class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
