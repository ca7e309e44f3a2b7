package io.sluice.common.auth;

import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.message.AuthRequest;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cryptography of the authentication exchange (docs/protocol.md, "Authentication"). Every value
 * is bound to one exchange by its transcript: {@code role byte | uint16 length | appId (UTF-8) |
 * client nonce | server nonce}.
 *
 * <ul>
 *   <li>client proof: HMAC-SHA256(key, "sluice-auth-client-v1" | transcript)
 *   <li>server proof: HMAC-SHA256(key, "sluice-auth-server-v1" | transcript)
 *   <li>registrar's wrapped secret: AES-128-GCM with the key HMAC-SHA256(cluster secret,
 *       "sluice-auth-wrap-v1" | transcript)[0..16), a random 12-byte IV sent before the ciphertext,
 *       and the transcript as associated data
 * </ul>
 *
 * where {@code key} is the cluster secret for the cluster and registrar roles and the application's
 * secret for the application role.
 */
public final class AuthProofs {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] CLIENT = "sluice-auth-client-v1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SERVER = "sluice-auth-server-v1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] WRAP = "sluice-auth-wrap-v1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DERIVE = "sluice-derive-v1".getBytes(StandardCharsets.US_ASCII);
  private static final int IV_BYTES = 12;
  private static final int TAG_BITS = 128;

  private AuthProofs() {}

  /** One exchange's inputs, as both sides know them once the challenge is answered. */
  public record Transcript(AuthRole role, String appId, byte[] clientNonce, byte[] serverNonce) {
    byte[] bytes() {
      byte[] app = appId.getBytes(StandardCharsets.UTF_8);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(role.code());
      out.write(app.length >>> 8);
      out.write(app.length);
      out.writeBytes(app);
      out.writeBytes(clientNonce);
      out.writeBytes(serverNonce);
      return out.toByteArray();
    }
  }

  public static byte[] nonce() {
    byte[] nonce = new byte[AuthRequest.NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    return nonce;
  }

  public static byte[] clientProof(Secret key, Transcript t) {
    return hmac(key.bytes(), CLIENT, t.bytes());
  }

  public static byte[] serverProof(Secret key, Transcript t) {
    return hmac(key.bytes(), SERVER, t.bytes());
  }

  /**
   * A secret for one purpose, derived from another: HMAC-SHA256(parent, "sluice-derive-v1" |
   * purpose). Whoever learns the derived secret learns nothing of the parent.
   */
  public static Secret derive(Secret parent, String purpose) {
    return Secret.of(hmac(parent.bytes(), DERIVE, purpose.getBytes(StandardCharsets.UTF_8)));
  }

  /** Whether a received proof is the expected one, compared in constant time. */
  public static boolean matches(byte[] expected, byte[] received) {
    return MessageDigest.isEqual(expected, received);
  }

  /** The registrar's application secret, encrypted for the server of this exchange only. */
  public static byte[] wrap(Secret cluster, Secret appSecret, Transcript t) {
    byte[] iv = new byte[IV_BYTES];
    RANDOM.nextBytes(iv);
    try {
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, cluster, t, iv);
      byte[] sealed = cipher.doFinal(appSecret.bytes());
      return ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  }

  /**
   * The application secret a registrar sent.
   *
   * @throws GeneralSecurityException when it was not wrapped for this exchange with this cluster
   *     secret, or was altered on the way
   */
  public static Secret unwrap(Secret cluster, byte[] wrapped, Transcript t)
      throws GeneralSecurityException {
    if (wrapped.length <= IV_BYTES) {
      throw new GeneralSecurityException("the wrapped secret is " + wrapped.length + " bytes");
    }
    Cipher cipher =
        cipher(Cipher.DECRYPT_MODE, cluster, t, Arrays.copyOfRange(wrapped, 0, IV_BYTES));
    byte[] secret = cipher.doFinal(wrapped, IV_BYTES, wrapped.length - IV_BYTES);
    if (secret.length < Secret.MIN_BYTES) {
      throw new GeneralSecurityException("the unwrapped secret is " + secret.length + " bytes");
    }
    return Secret.of(secret);
  }

  private static Cipher cipher(int mode, Secret cluster, Transcript t, byte[] iv)
      throws GeneralSecurityException {
    byte[] transcript = t.bytes();
    byte[] key = Arrays.copyOf(hmac(cluster.bytes(), WRAP, transcript), 16);
    Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
    cipher.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG_BITS, iv));
    cipher.updateAAD(transcript);
    return cipher;
  }

  private static byte[] hmac(byte[] key, byte[] label, byte[] transcript) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(label);
      return mac.doFinal(transcript);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }
}
