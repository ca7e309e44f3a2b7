package io.sluice.common.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ByteSizesTest {
  @Test
  void bytesInBinaryUnits() {
    assertEquals("0 B", ByteSizes.binary(0));
    assertEquals("1023 B", ByteSizes.binary(1023));
    assertEquals("1.0 KiB", ByteSizes.binary(1024));
    assertEquals("1.5 GiB", ByteSizes.binary(3L << 29));
    assertEquals("8.0 EiB", ByteSizes.binary(Long.MAX_VALUE));
  }
}
