package io.sluice.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class LogTextTest {
  @Test
  void plainTextIsLeftAsItIs() {
    String user = "jörg.müller-42";
    assertSame(user, LogText.escape(user));
  }

  @Test
  void controlCharactersAndBackslashesCannotBreakOrForgeALogLine() {
    assertEquals(
        "alice\\u0000\\u000a2026-11-28 INFO forged",
        LogText.escape("alice\u0000\n2026-11-28 INFO forged"));
    assertEquals("a\\\\u000ab", LogText.escape("a\\u000ab"), "an escape the peer typed stays text");
    assertEquals("\\u001b[31mred\\u202e", LogText.escape("\u001b[31mred\u202e"));
    assertEquals("null", LogText.escape(null));
  }
}
