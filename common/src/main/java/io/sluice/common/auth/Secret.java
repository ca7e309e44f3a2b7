package io.sluice.common.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A shared secret's bytes. Never printed: {@link #toString} says only how long it is. Equality is
 * compared in constant time.
 */
public final class Secret {
  /** The fewest bytes a secret may have: 128 bits. */
  public static final int MIN_BYTES = 16;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] bytes;

  private Secret(byte[] bytes) {
    if (bytes.length < MIN_BYTES) {
      throw new IllegalArgumentException(
          "a secret needs at least " + MIN_BYTES + " bytes, not " + bytes.length);
    }
    this.bytes = bytes;
  }

  /** A copy of {@code bytes} as a secret. */
  public static Secret of(byte[] bytes) {
    return new Secret(bytes.clone());
  }

  /** 32 fresh random bytes. */
  public static Secret random() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return new Secret(bytes);
  }

  /** The secret in base64, for configuration that travels as text. */
  public String toBase64() {
    return Base64.getEncoder().encodeToString(bytes);
  }

  public static Secret fromBase64(String text) {
    return new Secret(Base64.getDecoder().decode(text));
  }

  /** The bytes themselves, for the MAC and cipher code of this package; do not modify. */
  byte[] bytes() {
    return bytes;
  }

  /** A copy of the bytes, for callers outside this package that must hand them on. */
  public byte[] copyOfBytes() {
    return bytes.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret other && MessageDigest.isEqual(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    // Equal secrets hash alike; the value reveals nothing useful about the bytes.
    return bytes.length;
  }

  @Override
  public String toString() {
    return "Secret[" + bytes.length + " bytes]";
  }
}
