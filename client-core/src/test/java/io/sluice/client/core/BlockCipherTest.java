package io.sluice.client.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.client.core.codec.CorruptBlockException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Blocks encrypted with the application's key decrypt only with that key. */
class BlockCipherTest {
  private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private static byte[] key(long seed) {
    byte[] key = new byte[16];
    new Random(seed).nextBytes(key);
    return key;
  }

  private static byte[] roundTrip(BlockCipher sealer, BlockCipher opener, byte[] text)
      throws CorruptBlockException {
    ByteBuf sealed = sealer.seal(Unpooled.wrappedBuffer(text), ALLOC);
    try {
      ByteBuf opened = opener.open(sealed, ALLOC);
      try {
        return ByteBufUtil.getBytes(opened);
      } finally {
        opened.release();
      }
    } finally {
      sealed.release();
    }
  }

  @Test
  void anEncryptedBlockDecryptsToItsPlaintextAndHidesIt() throws Exception {
    BlockCipher cipher = new BlockCipher(key(1));
    byte[] text = "row 1: alice, 42; row 2: bob, 17".repeat(100).getBytes(StandardCharsets.UTF_8);
    ByteBuf plain = Unpooled.wrappedBuffer(text);
    ByteBuf sealed = cipher.seal(plain, ALLOC);
    try {
      assertEquals(text.length + BlockCipher.OVERHEAD, sealed.readableBytes());
      assertEquals(0, plain.readerIndex(), "the plaintext's indexes are untouched");
      assertFalse(
          new String(ByteBufUtil.getBytes(sealed), StandardCharsets.ISO_8859_1).contains("alice"));
    } finally {
      sealed.release();
    }
    assertArrayEquals(text, roundTrip(cipher, cipher, text));
  }

  @Test
  void blocksLargerThanAPooledChunkAndEmptyOnesRoundTrip() throws Exception {
    BlockCipher cipher = new BlockCipher(key(2));
    byte[] large = new byte[5 << 20];
    new Random(3).nextBytes(large);
    assertArrayEquals(large, roundTrip(cipher, cipher, large));
    assertArrayEquals(new byte[0], roundTrip(cipher, cipher, new byte[0]));
  }

  @Test
  void theSameBlockEncryptsDifferentlyEachTime() {
    BlockCipher cipher = new BlockCipher(key(4));
    byte[] text = new byte[1000];
    ByteBuf a = cipher.seal(Unpooled.wrappedBuffer(text), ALLOC);
    ByteBuf b = cipher.seal(Unpooled.wrappedBuffer(text), ALLOC);
    try {
      assertFalse(
          Arrays.equals(ByteBufUtil.getBytes(a), ByteBufUtil.getBytes(b)), "a fresh IV per block");
    } finally {
      a.release();
      b.release();
    }
  }

  @Test
  void anotherKeyGetsNoPlaintextAndATruncatedBlockIsCorrupt() throws Exception {
    byte[] text = "secret rows".repeat(50).getBytes(StandardCharsets.UTF_8);
    byte[] wrong = roundTrip(new BlockCipher(key(5)), new BlockCipher(key(6)), text);
    assertFalse(Arrays.equals(text, wrong));
    assertThrows(
        CorruptBlockException.class,
        () -> new BlockCipher(key(5)).open(Unpooled.wrappedBuffer(new byte[10]), ALLOC));
  }
}
