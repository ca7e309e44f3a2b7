package io.sluice.common.shuffle;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.common.codec.CorruptBlockException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts shuffle blocks with the application's key before they are pushed, and decrypts them
 * after they are fetched, so that servers hold, write and serve ciphertext only. Each block is
 * sealed with AES-GCM: a random 12-byte IV, then the ciphertext and its 16-byte tag. The block's
 * identity (shuffle, partition, map attempt, sequence) is the associated data, so a block cannot
 * be passed off as another one. Thread-safe.
 */
public final class BlockCipher {
  /** Bytes a sealed block has beyond its plaintext. */
  public static final int OVERHEAD = 12 + 16;
  private static final int IV_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  private final ThreadLocal<Cipher> ciphers = ThreadLocal.withInitial(() -> {
    try {
      return Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  });

  /** @param key an AES key: 16, 24 or 32 bytes */
  public BlockCipher(byte[] key) {
    if (key.length != 16 && key.length != 24 && key.length != 32) {
      throw new IllegalArgumentException("an AES key has 16, 24 or 32 bytes, not " + key.length);
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  /**
   * A sealed copy of {@code plain}'s readable bytes, in a direct buffer the caller owns. Does not
   * touch {@code plain}'s indexes or references.
   */
  public ByteBuf seal(ByteBuf plain, ByteBufAllocator allocator, int shuffleId, int partition,
      long taskAttemptId, int sequence) {
    byte[] iv = new byte[IV_BYTES];
    RANDOM.nextBytes(iv);
    int length = plain.readableBytes();
    ByteBuf sealed = allocator.directBuffer(length + OVERHEAD);
    try {
      Cipher cipher = init(Cipher.ENCRYPT_MODE, iv, shuffleId, partition, taskAttemptId,
          sequence);
      sealed.writeBytes(iv);
      ByteBuffer out = sealed.nioBuffer(IV_BYTES, length + OVERHEAD - IV_BYTES);
      int written = cipher.doFinal(plain.nioBuffer(plain.readerIndex(), length), out);
      sealed.writerIndex(IV_BYTES + written);
      return sealed;
    } catch (GeneralSecurityException | RuntimeException e) {
      sealed.release();
      throw new IllegalStateException("cannot encrypt a block of shuffle " + shuffleId, e);
    }
  }

  /**
   * The plaintext of a sealed block, in a direct buffer the caller owns. Does not touch
   * {@code sealed}'s indexes or references.
   *
   * @throws CorruptBlockException when the block was not sealed with this key for this identity,
   *     or was altered
   */
  public ByteBuf open(ByteBuf sealed, ByteBufAllocator allocator, int shuffleId, int partition,
      long taskAttemptId, int sequence) throws CorruptBlockException {
    int length = sealed.readableBytes();
    if (length < OVERHEAD) {
      throw new CorruptBlockException("an encrypted block of " + length + " bytes is shorter "
          + "than its IV and tag");
    }
    byte[] iv = new byte[IV_BYTES];
    sealed.getBytes(sealed.readerIndex(), iv);
    ByteBuf plain = allocator.directBuffer(length - OVERHEAD);
    try {
      Cipher cipher = init(Cipher.DECRYPT_MODE, iv, shuffleId, partition, taskAttemptId,
          sequence);
      int written = cipher.doFinal(sealed.nioBuffer(sealed.readerIndex() + IV_BYTES,
          length - IV_BYTES), plain.nioBuffer(0, length - OVERHEAD));
      plain.writerIndex(written);
      return plain;
    } catch (AEADBadTagException e) {
      plain.release();
      throw new CorruptBlockException("an encrypted block does not open with this application's "
          + "key (altered, or not this block)");
    } catch (GeneralSecurityException | RuntimeException e) {
      plain.release();
      throw new CorruptBlockException("cannot decrypt a block: " + e);
    }
  }

  private Cipher init(int mode, byte[] iv, int shuffleId, int partition, long taskAttemptId,
      int sequence) throws GeneralSecurityException {
    Cipher cipher = ciphers.get();
    cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, iv));
    cipher.updateAAD(ByteBuffer.allocate(20).putInt(shuffleId).putInt(partition)
        .putLong(taskAttemptId).putInt(sequence).array());
    return cipher;
  }
}
