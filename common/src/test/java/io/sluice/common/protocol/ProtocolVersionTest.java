package io.sluice.common.protocol;

import static io.sluice.common.protocol.ProtocolVersion.CURRENT;
import static io.sluice.common.protocol.ProtocolVersion.MIN_SUPPORTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProtocolVersionTest {

  @Test
  void thisReleaseSpeaksVersionsTwoToSix() {
    assertEquals(7, CURRENT);
    assertEquals(2, MIN_SUPPORTED);
    assertTrue(MIN_SUPPORTED <= CURRENT);
  }

  @Test
  void aStatusNewerThanThePeersVersionIsSentAsItsStandIn() {
    assertEquals(StatusCode.CORRUPT_BLOCK, StatusCode.CORRUPT_BLOCK.forVersion(3));
    assertEquals(StatusCode.INVALID_REQUEST, StatusCode.CORRUPT_BLOCK.forVersion(2));
    assertEquals(StatusCode.ACCESS_DENIED, StatusCode.ACCESS_DENIED.forVersion(4));
    assertEquals(StatusCode.REFUSED, StatusCode.ACCESS_DENIED.forVersion(3));
    assertEquals(StatusCode.REFUSED, StatusCode.UNAUTHENTICATED.forVersion(2));
    for (StatusCode status : StatusCode.values()) {
      StatusCode old = status.forVersion(MIN_SUPPORTED);
      assertEquals(status.isRetriable(), old.isRetriable(), status + " keeps its retry rule");
      assertEquals(old, old.forVersion(MIN_SUPPORTED), status + "'s stand-in is known to 2");
    }
  }

  @Test
  void picksTheHighestVersionBothRangesHold() {
    assertEquals(CURRENT, ProtocolVersion.negotiate(MIN_SUPPORTED, CURRENT), "the same range");
    assertEquals(CURRENT, ProtocolVersion.negotiate(CURRENT, CURRENT));
    assertEquals(CURRENT, ProtocolVersion.negotiate(1, CURRENT + 3), "a wider range");
    assertEquals(MIN_SUPPORTED, ProtocolVersion.negotiate(1, MIN_SUPPORTED), "an older peer");
    assertEquals(CURRENT, ProtocolVersion.negotiate(CURRENT, CURRENT + 1), "a newer peer");
    assertEquals(CURRENT, ProtocolVersion.negotiate(Integer.MIN_VALUE, Integer.MAX_VALUE));
  }

  @Test
  void rangesThatDoNotOverlapHaveNoVersion() {
    assertEquals(-1, ProtocolVersion.negotiate(1, 1), "a version-1-only client");
    assertEquals(-1, ProtocolVersion.negotiate(0, MIN_SUPPORTED - 1));
    assertEquals(-1, ProtocolVersion.negotiate(CURRENT + 1, CURRENT + 5), "only newer versions");
    assertEquals(-1, ProtocolVersion.negotiate(CURRENT + 1, CURRENT + 1));
    assertEquals(-1, ProtocolVersion.negotiate(CURRENT, MIN_SUPPORTED - 1), "an inverted range");
    assertEquals(-1, ProtocolVersion.negotiate(CURRENT + 2, 1), "an inverted range");
  }

  @Test
  void describesARangeTheWayMessagesShowIt() {
    assertEquals("2", ProtocolVersion.describeRange(2, 2));
    assertEquals("2..3", ProtocolVersion.describeRange(2, 3));
  }
}
