package io.sluice.server.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SafeNamesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "app-20240101120000-0001",
        "application_1700000000000_0042",
        "local-1700000000000",
        "a",
        "..a",
        "a..",
        "A.b_c-9"
      })
  void acceptsApplicationIds(String appId) {
    assertEquals(appId, SafeNames.checkAppId(appId));
    assertTrue(SafeNames.isValidAppId(appId));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "../x",
        "a/b",
        "a\\b",
        "",
        ".",
        "..",
        "/etc",
        "x\u0000y",
        "a b",
        "app:1",
        "\u00e9t\u00e9",
        "x\ny"
      })
  void rejectsNamesThatCouldEscapeOrMisbehaveAsPaths(String appId) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SafeNames.checkAppId(appId));
    assertTrue(e.getMessage().startsWith("invalid application id"), e.getMessage());
    assertFalse(SafeNames.isValidAppId(appId));
  }

  @Test
  void rejectsMissingAndOverlongIds() {
    assertThrows(IllegalArgumentException.class, () -> SafeNames.checkAppId(null));
    String longest = "a".repeat(SafeNames.MAX_APP_ID_LENGTH);
    assertEquals(longest, SafeNames.checkAppId(longest));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SafeNames.checkAppId(longest + "a"));
    assertTrue(e.getMessage().contains("201"), e.getMessage());
    assertTrue(e.getMessage().length() < 300, "an overlong id is not echoed in full");
  }

  @Test
  void messagesEscapeControlCharacters() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SafeNames.checkAppId("x\u0000y"));
    assertFalse(e.getMessage().contains("\u0000"));
    assertTrue(e.getMessage().contains("x\\u0000y"), e.getMessage());
  }
}
