package io.sluice.common.config;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the known key an unknown one was probably meant to be: the same key but for case and
 * separators ({@code Buffer_Capacity}), or one within two edits, where swapping two characters
 * counts as one ({@code buffer.capactiy}).
 */
final class KeySuggester {
  static final int MAX_DISTANCE = 2;

  private KeySuggester() {}

  /** The closest known key, if one is close enough; ties go to the alphabetically first. */
  static Optional<String> suggest(String unknown, Collection<String> known) {
    String normalized = normalize(unknown);
    String best = null;
    int bestDistance = MAX_DISTANCE + 1;
    for (String candidate : known) {
      int distance =
          normalize(candidate).equals(normalized)
              ? 0
              : distance(unknown.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      boolean closer = distance < bestDistance;
      boolean asCloseButFirst =
          distance == bestDistance && best != null && candidate.compareTo(best) < 0;
      if (closer || asCloseButFirst) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return Optional.ofNullable(best);
  }

  private static String normalize(String key) {
    return key.toLowerCase(Locale.ROOT).replaceAll("[-_.]", "");
  }

  /**
   * Damerau-Levenshtein distance (insertions, deletions, substitutions and transpositions of
   * adjacent characters, with no restriction on editing a substring twice).
   */
  static int distance(String a, String b) {
    int infinity = a.length() + b.length();
    // d[i + 1][j + 1] is the distance between a's first i characters and b's first j; row and
    // column 0 hold the sentinel the transposition step needs.
    int[][] d = new int[a.length() + 2][b.length() + 2];
    d[0][0] = infinity;
    for (int i = 0; i <= a.length(); i++) {
      d[i + 1][0] = infinity;
      d[i + 1][1] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j + 1] = infinity;
      d[1][j + 1] = j;
    }
    Map<Character, Integer> lastRowOf = new HashMap<>();
    for (int i = 1; i <= a.length(); i++) {
      int lastMatchingColumn = 0;
      for (int j = 1; j <= b.length(); j++) {
        int k = lastRowOf.getOrDefault(b.charAt(j - 1), 0);
        int l = lastMatchingColumn;
        int cost = 1;
        if (a.charAt(i - 1) == b.charAt(j - 1)) {
          cost = 0;
          lastMatchingColumn = j;
        }
        d[i + 1][j + 1] =
            Math.min(
                Math.min(d[i][j] + cost, d[i + 1][j] + 1),
                Math.min(d[i][j + 1] + 1, d[k][l] + (i - k - 1) + 1 + (j - l - 1)));
      }
      lastRowOf.put(a.charAt(i - 1), i);
    }
    return d[a.length() + 1][b.length() + 1];
  }
}
