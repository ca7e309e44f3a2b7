package io.sluice.client.core.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.protocol.message.GetShuffleResultResponse;
import org.junit.jupiter.api.Test;

class ExpectedBlocksTest {
  private static final long A = 40;
  private static final long B = 41;
  private static final long SPECULATIVE = 42;

  @Test
  void keepsEachCommittedBlockOfACountedAttemptOnce() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {B, A});
    blocks.commit(A, 2);
    blocks.commit(B, 1);

    assertTrue(blocks.wants(A, 1));
    assertTrue(blocks.accept(A, 1));
    assertFalse(blocks.wants(A, 1), "already received");
    assertFalse(blocks.accept(A, 1), "a duplicate is dropped");
    assertTrue(blocks.accept(B, 0));
    assertTrue(
        blocks.missing().contains("block 0 of the 2 that map attempt " + A), blocks.missing());
    assertTrue(blocks.accept(A, 0));
    assertNull(blocks.missing());
  }

  @Test
  void dropsBlocksOfAttemptsThatDoNotCountOrPastTheCommittedCount() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A});
    blocks.commit(A, 1);
    blocks.commit(SPECULATIVE, 3);

    assertFalse(blocks.accept(SPECULATIVE, 0), "not a counted attempt");
    assertFalse(blocks.accept(A, 1), "pushed but not committed");
    assertFalse(blocks.accept(A, -3), "a negative sequence");
    assertTrue(blocks.accept(A, 0));
    assertNull(blocks.missing());
  }

  @Test
  void keysByAttemptAndSequenceSoAttemptsNeverMaskEachOther() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A, B});
    blocks.commit(A, 1);
    blocks.commit(B, 1);

    assertTrue(blocks.accept(A, 0));
    assertTrue(blocks.accept(B, 0), "another attempt's block 0, not a duplicate");
    assertFalse(blocks.accept(B, 0));
    assertNull(blocks.missing());
  }

  @Test
  void blocksOfACountedAttemptAreWantedBeforeItsCountIsKnown() {
    // A location read before the one that lists the commit may hold the attempt's blocks.
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A});
    assertTrue(blocks.accept(A, 5));
    blocks.commit(A, 6);
    assertFalse(blocks.wants(A, 6));
    assertTrue(blocks.missing().contains("block 0 of the 6"), blocks.missing());
  }

  @Test
  void namesACountedAttemptWithNoCommit() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A, B});
    blocks.commit(A, 2);
    blocks.commit(B, GetShuffleResultResponse.NOT_COMMITTED);
    blocks.accept(A, 0);
    blocks.accept(A, 1);

    String missing = blocks.missing();
    assertTrue(missing.contains("no server lists a commit of map attempt " + B), missing);
    assertTrue(new ExpectedBlocks(new long[] {A}).missing().contains("map attempt " + A));
  }

  @Test
  void theSameCountFromSeveralServersIsOneCommitButDifferentCountsAreDamage() {
    ExpectedBlocks blocks = new ExpectedBlocks(new long[] {A});
    blocks.commit(A, 3);
    blocks.commit(A, 3);
    blocks.commit(A, GetShuffleResultResponse.NOT_COMMITTED);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> blocks.commit(A, 4));
    assertTrue(
        e.getMessage().contains("committed 3 blocks on one server and 4 on another"),
        e.getMessage());
  }

  @Test
  void theAttemptsAreSortedAndDistinct() {
    assertArrayEquals(
        new long[] {A, B, SPECULATIVE},
        new ExpectedBlocks(new long[] {SPECULATIVE, A, B, A}).attempts());
    assertNull(new ExpectedBlocks(new long[0]).missing(), "nothing counted, nothing missing");
  }
}
