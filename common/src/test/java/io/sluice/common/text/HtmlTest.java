package io.sluice.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class HtmlTest {
  @Test
  void everyCharacterThatEndsTextOrAnAttributeIsEscaped() {
    assertEquals(
        "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
        Html.escape("<a href=\"x\" title='y'>&</a>"));
    assertEquals("null", Html.escape(null));
    assertEquals("42", Html.escape(42));
  }
}
