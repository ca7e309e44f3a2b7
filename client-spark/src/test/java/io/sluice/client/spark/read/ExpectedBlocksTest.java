package io.sluice.client.spark.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.block.BlockIdLayout;
import org.junit.jupiter.api.Test;

class ExpectedBlocksTest {
  private static final BlockIdLayout LAYOUT = BlockIdLayout.DEFAULT;
  private static final int P = 7;
  private static final long A = 40;
  private static final long B = 41;
  private static final long SPECULATIVE = 42;

  private static long id(int sequence, long attempt) {
    return LAYOUT.blockId(sequence, P, attempt);
  }

  @Test
  void keepsEachCommittedBlockOfACountedAttemptOnce() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {B, A}, LAYOUT);
    assertEquals(-1, blocks.expect(new long[] {id(0, A), id(1, A), id(0, B)}));

    assertTrue(blocks.wants(A, id(1, A)));
    assertTrue(blocks.accept(A, id(1, A)));
    assertFalse(blocks.wants(A, id(1, A)), "already received");
    assertFalse(blocks.accept(A, id(1, A)), "a duplicate is dropped");
    assertTrue(blocks.accept(B, id(0, B)));
    assertEquals(id(0, A), blocks.firstMissing());
    assertTrue(blocks.accept(A, id(0, A)));
    assertEquals(-1, blocks.firstMissing());
  }

  @Test
  void dropsBlocksOfAttemptsThatDoNotCountOrWereNeverCommitted() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A}, LAYOUT);
    blocks.expect(new long[] {id(0, A), id(0, SPECULATIVE)});

    assertFalse(blocks.accept(SPECULATIVE, id(0, SPECULATIVE)), "not a counted attempt");
    assertFalse(blocks.accept(A, id(5, A)), "pushed but not committed");
    assertFalse(blocks.accept(A, id(0, B)), "an id that another attempt's bits mark");
    assertFalse(blocks.accept(A, -3), "a negative id");
    assertTrue(blocks.accept(A, id(0, A)));
  }

  @Test
  void keysByAttemptAndIdSoAttemptsSharingLowBitsStayApart() {
    long twin = A + (1L << LAYOUT.taskAttemptWidth());
    assertEquals(id(0, A), id(0, twin), "the ids are equal");
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A, twin}, LAYOUT);
    blocks.expect(new long[] {id(0, A)});

    assertTrue(blocks.accept(A, id(0, A)));
    assertTrue(blocks.accept(twin, id(0, twin)), "another attempt's block, not a duplicate");
    assertFalse(blocks.accept(twin, id(0, twin)));
  }

  @Test
  void namesACountedAttemptWithNoCommittedBlock() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A, B}, LAYOUT);
    assertEquals(B, blocks.expect(new long[] {id(0, A), id(1, A)}));
    assertEquals(A, new ExpectedBlocks(new long[] {A}, LAYOUT).expect(new long[0]));
  }

  @Test
  void findsTheAttemptOfAMissingBlock() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A, B}, LAYOUT);
    blocks.expect(new long[] {id(0, A), id(0, B), id(0, B)});
    blocks.accept(A, id(0, A));
    assertEquals(id(0, B), blocks.firstMissing());
    assertEquals(B, blocks.attemptOf(blocks.firstMissing()));
    assertEquals(-1, blocks.attemptOf(id(0, SPECULATIVE)));
    assertEquals(-1, blocks.attemptOf(-1));
    blocks.accept(B, id(0, B));
    assertEquals(-1, blocks.firstMissing(), "a listed duplicate is one block");
  }
}
