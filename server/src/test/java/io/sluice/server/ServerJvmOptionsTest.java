package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.common.config.SluiceConf;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerJvmOptionsTest {
  @TempDir Path dir;

  @Test
  void theHeapIsSizedForTheShapeTheConfigurationNames() {
    SluiceConf defaults = TestServers.conf(dir, Map.of());
    // 256 MiB + 100 M pairs x 1.5 bytes + 1 M blocks x 160 bytes, in whole MiB: the docs' figure.
    assertEquals(552L << 20, ServerJvmOptions.heap(defaults));

    SluiceConf large =
        TestServers.conf(
            dir,
            Map.of(
                ServerOptions.HEAP_COMMIT_PAIRS.key(), "1000000000",
                ServerOptions.HEAP_BLOCKS_IN_MEMORY.key(), "1000"));
    // 1 GiB of push pool / 1,000 blocks would charge 1 MiB per block; the charge stops at 32 KiB,
    // so the pool may hold 32,768 blocks, and the heap is sized for those.
    long bytes = (256L << 20) + 1_500_000_000L + 32_768L * ServerJvmOptions.HEAP_BYTES_PER_BLOCK;
    assertEquals((bytes + (1 << 20) - 1) >> 20 << 20, ServerJvmOptions.heap(large));
  }
}
