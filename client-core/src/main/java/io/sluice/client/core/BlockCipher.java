package io.sluice.client.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.client.core.codec.CorruptBlockException;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts shuffle blocks with the application's key before they are pushed, and decrypts them
 * after they are fetched, so that servers hold, write and serve ciphertext only. Each block is
 * encrypted with AES-CTR under a fresh random 16-byte IV, which precedes the ciphertext: the same
 * construction as Spark's own I/O encryption, confidentiality without a MAC. A block altered on a
 * server is caught by its CRC32C only when the alteration is not also reflected in it; see
 * docs/security.md. Thread-safe.
 *
 * <p>AES-CTR rather than AES-GCM: measured on JDK 17, GCM encrypted 1 MiB blocks at about 100 MiB/s
 * until its GHASH code was compiled (tens of seconds of a task's CPU), CTR at about 4 GiB/s from
 * the start.
 */
public final class BlockCipher {
  /** Bytes an encrypted block has beyond its plaintext: the IV. */
  public static final int OVERHEAD = 16;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  private final ThreadLocal<Cipher> ciphers =
      ThreadLocal.withInitial(
          () -> {
            try {
              return Cipher.getInstance("AES/CTR/NoPadding");
            } catch (GeneralSecurityException e) {
              throw new IllegalStateException("AES-CTR is not available in this JVM", e);
            }
          });

  /**
   * @param key an AES key: 16, 24 or 32 bytes
   */
  public BlockCipher(byte[] key) {
    if (key.length != 16 && key.length != 24 && key.length != 32) {
      throw new IllegalArgumentException("an AES key has 16, 24 or 32 bytes, not " + key.length);
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  /**
   * An encrypted copy of {@code plain}'s readable bytes, in a direct buffer the caller owns. Does
   * not touch {@code plain}'s indexes or references.
   */
  public ByteBuf seal(ByteBuf plain, ByteBufAllocator allocator) {
    byte[] iv = new byte[OVERHEAD];
    RANDOM.nextBytes(iv);
    int length = plain.readableBytes();
    ByteBuf sealed = allocator.directBuffer(length + OVERHEAD);
    try {
      sealed.writeBytes(iv);
      int written =
          cipher(Cipher.ENCRYPT_MODE, iv)
              .doFinal(
                  plain.nioBuffer(plain.readerIndex(), length), sealed.nioBuffer(OVERHEAD, length));
      sealed.writerIndex(OVERHEAD + written);
      return sealed;
    } catch (GeneralSecurityException | RuntimeException e) {
      sealed.release();
      throw new IllegalStateException("cannot encrypt a block", e);
    }
  }

  /**
   * The plaintext of an encrypted block, in a direct buffer the caller owns. Does not touch {@code
   * sealed}'s indexes or references.
   *
   * @throws CorruptBlockException when the block is shorter than its IV
   */
  public ByteBuf open(ByteBuf sealed, ByteBufAllocator allocator) throws CorruptBlockException {
    int length = sealed.readableBytes() - OVERHEAD;
    if (length < 0) {
      throw new CorruptBlockException(
          "an encrypted block of " + sealed.readableBytes() + " bytes is shorter than its IV");
    }
    byte[] iv = new byte[OVERHEAD];
    sealed.getBytes(sealed.readerIndex(), iv);
    ByteBuf plain = allocator.directBuffer(length);
    try {
      int written =
          cipher(Cipher.DECRYPT_MODE, iv)
              .doFinal(
                  sealed.nioBuffer(sealed.readerIndex() + OVERHEAD, length),
                  plain.nioBuffer(0, length));
      plain.writerIndex(written);
      return plain;
    } catch (GeneralSecurityException | RuntimeException e) {
      plain.release();
      throw new CorruptBlockException("cannot decrypt a block: " + e);
    }
  }

  private Cipher cipher(int mode, byte[] iv) throws GeneralSecurityException {
    Cipher cipher = ciphers.get();
    cipher.init(mode, key, new IvParameterSpec(iv));
    return cipher;
  }
}
