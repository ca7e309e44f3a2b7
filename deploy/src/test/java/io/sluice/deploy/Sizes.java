package io.sluice.deploy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Memory sizes as the JVM and Kubernetes write them. */
final class Sizes {
  private static final Pattern QUANTITY = Pattern.compile("(\\d+)(Ki|Mi|Gi)");

  private Sizes() {}

  /** A JVM size as in {@code -Xmx}: 512m, 1g. */
  static long jvmBytes(String size) {
    char unit = Character.toLowerCase(size.charAt(size.length() - 1));
    long n = Character.isDigit(unit) ? 0 : Long.parseLong(size.substring(0, size.length() - 1));
    return switch (unit) {
      case 'k' -> n << 10;
      case 'm' -> n << 20;
      case 'g' -> n << 30;
      default -> Long.parseLong(size);
    };
  }

  /** A Kubernetes memory quantity in binary units: 1536Mi, 6Gi. */
  static long kubernetesBytes(String quantity) {
    Matcher m = QUANTITY.matcher(quantity);
    assertTrue(m.matches(), "a memory quantity in Ki, Mi or Gi: " + quantity);
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "Ki" -> n << 10;
      case "Mi" -> n << 20;
      default -> n << 30;
    };
  }
}
