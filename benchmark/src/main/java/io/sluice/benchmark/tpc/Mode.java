package io.sluice.benchmark.tpc;

import java.util.Arrays;

/** A shuffle implementation the benchmark compares, named on the command line. */
enum Mode {
  /** Spark's own sort shuffle, files on the executors' local disks. */
  BUILTIN(false),
  /** Sluice: the shaded client jar and servers started by the harness. */
  SLUICE(true);

  private final boolean usesClientJar;

  Mode(boolean usesClientJar) {
    this.usesClientJar = usesClientJar;
  }

  boolean usesClientJar() {
    return usesClientJar;
  }

  String label() {
    return name().toLowerCase();
  }

  static Mode parse(String name) {
    return Arrays.stream(values())
        .filter(m -> m.label().equals(name.trim().toLowerCase()))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown mode '" + name + "'; known: builtin, sluice"));
  }
}
