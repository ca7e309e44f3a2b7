package io.sluice.benchmark.tpc;

import java.util.SplittableRandom;

/**
 * Comment text in the manner of TPC-H's grammar: words drawn from a fixed vocabulary until a random
 * length is reached, so that comments compress as real ones do (neither random bytes nor one
 * repeated string).
 */
final class TextPool {
  private static final String[] WORDS = {
    "furiously",
    "quickly",
    "carefully",
    "blithely",
    "slyly",
    "ironic",
    "final",
    "special",
    "pending",
    "regular",
    "express",
    "bold",
    "even",
    "silent",
    "unusual",
    "fluffily",
    "daringly",
    "deposits",
    "requests",
    "packages",
    "accounts",
    "instructions",
    "theodolites",
    "pinto",
    "beans",
    "foxes",
    "ideas",
    "dependencies",
    "excuses",
    "platelets",
    "asymptotes",
    "courts",
    "dolphins",
    "multipliers",
    "sauternes",
    "warthogs",
    "frets",
    "dinos",
    "attainments",
    "somas",
    "sheaves",
    "tithes",
    "escapades",
    "sentiments",
    "decoys",
    "realms",
    "pains",
    "grouches",
    "among",
    "above",
    "across",
    "after",
    "along",
    "around",
    "beside",
    "haggle",
    "sleep",
    "wake",
    "are",
    "cajole",
    "use",
    "detect",
    "integrate",
    "nag",
    "boost",
    "affix"
  };

  private TextPool() {}

  /** A phrase of between {@code min} and {@code max} characters. */
  static String phrase(SplittableRandom rng, int min, int max) {
    int target = min + rng.nextInt(max - min + 1);
    StringBuilder sb = new StringBuilder(target + 16);
    while (sb.length() < target) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(WORDS[rng.nextInt(WORDS.length)]);
    }
    sb.setLength(target);
    return sb.toString();
  }
}
