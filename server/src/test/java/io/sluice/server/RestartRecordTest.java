package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.server.storage.RestartManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestartRecordTest {
  @TempDir Path tmp;

  /**
   * A record left in the first dir (it could not be deleted: the dir turned read-only) beside a
   * newer one a later stop wrote to the second: the newer is read, not the first in dir order.
   */
  @Test
  void theNewestRecordIsReadWhateverDirHoldsIt() throws Exception {
    List<Path> dirs = List.of(tmp.resolve("d1"), tmp.resolve("d2"));
    for (Path d : dirs) {
      Files.createDirectories(d);
    }
    List<Path> records = RestartManifest.locations(dirs);
    RestartManifest.write(records.get(0), List.of(app("app-old")));
    Files.setLastModifiedTime(records.get(0), FileTime.from(Instant.now().minusSeconds(3600)));
    RestartManifest.write(records.get(1), List.of(app("app-new")));

    List<RestartManifest.Application> read = new RestartRecord(dirs).read();

    assertEquals(
        List.of("app-new"), read.stream().map(RestartManifest.Application::appId).toList());
  }

  private static RestartManifest.Application app(String appId) {
    return new RestartManifest.Application(appId, "u", null, List.of());
  }
}
