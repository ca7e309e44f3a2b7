package io.sluice.common.shuffle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.common.codec.CorruptBlockException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Blocks sealed with the application's key open only with that key, as that block. */
class BlockCipherTest {
  private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

  private static byte[] key(long seed) {
    byte[] key = new byte[16];
    new Random(seed).nextBytes(key);
    return key;
  }

  @Test
  void aSealedBlockOpensToItsPlaintextAndHidesIt() throws Exception {
    BlockCipher cipher = new BlockCipher(key(1));
    byte[] text = "row 1: alice, 42; row 2: bob, 17".repeat(100).getBytes(StandardCharsets.UTF_8);
    ByteBuf plain = Unpooled.wrappedBuffer(text);
    ByteBuf sealed = cipher.seal(plain, ALLOC, 3, 7, 1234L, 5);
    try {
      assertEquals(text.length + BlockCipher.OVERHEAD, sealed.readableBytes());
      assertEquals(0, plain.readerIndex(), "the plaintext's indexes are untouched");
      assertFalse(new String(ByteBufUtil.getBytes(sealed), StandardCharsets.ISO_8859_1)
          .contains("alice"));
      ByteBuf opened = cipher.open(sealed, ALLOC, 3, 7, 1234L, 5);
      try {
        assertArrayEquals(text, ByteBufUtil.getBytes(opened));
      } finally {
        opened.release();
      }
    } finally {
      sealed.release();
    }
  }

  @Test
  void aBlockOpensOnlyWithItsKeyAsItselfAndUnaltered() {
    BlockCipher cipher = new BlockCipher(key(1));
    ByteBuf sealed = cipher.seal(Unpooled.wrappedBuffer(new byte[1000]), ALLOC, 3, 7, 1234L, 5);
    try {
      assertThrows(CorruptBlockException.class,
          () -> new BlockCipher(key(2)).open(sealed, ALLOC, 3, 7, 1234L, 5));
      assertThrows(CorruptBlockException.class, () -> cipher.open(sealed, ALLOC, 3, 8, 1234L, 5),
          "another partition");
      assertThrows(CorruptBlockException.class, () -> cipher.open(sealed, ALLOC, 3, 7, 1235L, 5),
          "another map attempt");
      assertThrows(CorruptBlockException.class, () -> cipher.open(sealed, ALLOC, 3, 7, 1234L, 6),
          "another sequence");
      sealed.setByte(40, sealed.getByte(40) ^ 1);
      assertThrows(CorruptBlockException.class, () -> cipher.open(sealed, ALLOC, 3, 7, 1234L, 5),
          "altered");
      assertThrows(CorruptBlockException.class,
          () -> cipher.open(Unpooled.wrappedBuffer(new byte[10]), ALLOC, 3, 7, 1234L, 5));
    } finally {
      sealed.release();
    }
  }

  @Test
  void anEmptyBlockRoundTrips() throws Exception {
    BlockCipher cipher = new BlockCipher(key(3));
    ByteBuf sealed = cipher.seal(Unpooled.EMPTY_BUFFER, ALLOC, 0, 0, 0L, 0);
    ByteBuf opened = cipher.open(sealed, ALLOC, 0, 0, 0L, 0);
    assertEquals(0, opened.readableBytes());
    opened.release();
    sealed.release();
  }
}
