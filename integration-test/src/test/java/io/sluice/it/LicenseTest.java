package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.fixtures.Daemons;
import io.sluice.fixtures.ProjectRoot;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each artifact bundles, against what licenses/BUNDLED.md names: every third-party jar in the
 * distribution tarball and every third-party part of the shaded client jars (found by what the jar
 * holds, not by what the build meant to put in) is listed there with its license, every license
 * text and notice it cites is shipped, and Sluice's own LICENSE (Apache-2.0) and NOTICE are in each
 * artifact.
 */
class LicenseTest {
  private static final Path LICENSES = ProjectRoot.get().resolve("licenses");
  private static final Pattern ARTIFACT = Pattern.compile("`([a-z0-9_.-]+)`");
  private static final Pattern SHIPPED_FILE =
      Pattern.compile("`((?:LICENSE|NOTICE)-[a-z0-9-]+\\.txt)`");

  /** A jar's file name: artifact id, then a version that starts with a digit. */
  private static final Pattern JAR = Pattern.compile("(.+?)-\\d.*\\.jar");

  /**
   * What a shaded client jar may hold besides Sluice's own classes: each part by where it lies in
   * the jar, and the artifact it comes from.
   */
  private static final Map<String, String> CLIENT_PARTS = new LinkedHashMap<>();

  static {
    CLIENT_PARTS.put("io/sluice/shaded/io/netty/", "netty-common");
    CLIENT_PARTS.put(
        "io/sluice/shaded/com/google/common/util/concurrent/internal/", "failureaccess");
    CLIENT_PARTS.put("io/sluice/shaded/com/google/", "guava");
    CLIENT_PARTS.put("META-INF/proguard/", "guava");
    CLIENT_PARTS.put(
        "META-INF/native/libio_sluice_shaded_netty_tcnative", "netty-tcnative-boringssl-static");
    CLIENT_PARTS.put("META-INF/native/netty_tcnative", "netty-tcnative-boringssl-static");
    CLIENT_PARTS.put(
        "META-INF/native/libio_sluice_shaded_netty_transport_native_epoll",
        "netty-transport-native-epoll");
    CLIENT_PARTS.put("META-INF/native-image/io.netty/", "netty-common");
    CLIENT_PARTS.put("META-INF/license/", "netty-common");
    CLIENT_PARTS.put("META-INF/LICENSE.txt", "netty-common");
    CLIENT_PARTS.put("META-INF/NOTICE.txt", "netty-common");
  }

  /** Sluice's own entries in a client jar. */
  private static final List<String> OWN =
      List.of(
          "io/sluice/client/",
          "io/sluice/common/",
          "META-INF/MANIFEST.MF",
          "META-INF/services/",
          "META-INF/LICENSE",
          "META-INF/NOTICE",
          "META-INF/licenses/",
          "META-INF/versions/17/io/sluice/client/");

  @Test
  void theSourceTreeIsApacheLicensedAndEveryCitedTextExists() throws IOException {
    assertApache(Files.readString(ProjectRoot.get().resolve("LICENSE")));
    assertTrue(Files.readString(ProjectRoot.get().resolve("NOTICE")).startsWith("Sluice\n"));
    for (String file : shippedFiles()) {
      assertTrue(Files.isRegularFile(LICENSES.resolve(file)), "licenses/" + file + " exists");
    }
  }

  @Test
  void everyThirdPartyJarOfTheTarballIsListedWithItsLicense(@TempDir Path dir) throws Exception {
    Daemons.Result untar =
        Daemons.inProject()
            .run(
                Map.of(), "tar", "-xzf", Artifacts.distribution().toString(), "-C", dir.toString());
    assertEquals(0, untar.exitCode(), untar.output());
    Path home;
    try (Stream<Path> unpacked = Files.list(dir)) {
      home = unpacked.findFirst().orElseThrow();
    }
    Set<String> bundled = new TreeSet<>();
    List<String> unnamed = new ArrayList<>();
    for (String lib : List.of("lib/server", "lib/coordinator")) {
      try (Stream<Path> jars = Files.list(home.resolve(lib))) {
        for (Path jar : jars.toList()) {
          Matcher m = JAR.matcher(jar.getFileName().toString());
          if (!m.matches()) {
            unnamed.add(lib + "/" + jar.getFileName());
          } else if (!m.group(1).startsWith("sluice-")) {
            bundled.add(m.group(1));
          }
        }
      }
    }
    assertEquals(List.of(), unnamed, "files of lib/ that are not artifact-version.jar");
    System.out.println("The tarball's lib/server and lib/coordinator bundle " + bundled);
    Set<String> missing = new TreeSet<>(bundled);
    missing.removeAll(listed("## The distribution tarball"));
    assertEquals(Set.of(), missing, "bundled but not in licenses/BUNDLED.md");
    assertApache(Files.readString(home.resolve("LICENSE")));
    assertEquals(
        Files.readString(ProjectRoot.get().resolve("NOTICE")),
        Files.readString(home.resolve("NOTICE")));
    assertTrue(Files.isRegularFile(home.resolve("licenses/BUNDLED.md")));
    for (String file : shippedFiles()) {
      assertTrue(
          Files.isRegularFile(home.resolve("licenses").resolve(file)),
          "the tarball ships licenses/" + file);
    }
  }

  @Test
  void everyThirdPartyPartOfTheClientJarsIsListedWithItsLicense() throws IOException {
    Set<String> listed = listed("## The shaded client jars");
    for (Path jarPath :
        List.of(
            Artifacts.shadedClientJar(),
            clientJar("client-spark-4"),
            clientJar("client-spark-3.4"),
            clientJar("client-spark-3.3"))) {
      Set<String> bundled = new TreeSet<>();
      List<String> unknown = new ArrayList<>();
      try (ZipFile jar = new ZipFile(jarPath.toFile())) {
        for (ZipEntry entry : jar.stream().filter(e -> !e.isDirectory()).toList()) {
          String name = entry.getName();
          if (OWN.stream().anyMatch(name::startsWith)) {
            continue;
          }
          String artifact =
              CLIENT_PARTS.entrySet().stream()
                  .filter(e -> name.startsWith(e.getKey()))
                  .map(Map.Entry::getValue)
                  .findFirst()
                  .orElse(null);
          if (artifact == null) {
            unknown.add(name);
          } else {
            bundled.add(artifact);
          }
        }
        assertEquals(List.of(), unknown, jarPath.getFileName() + " holds parts of unknown origin");
        assertApache(read(jar, "META-INF/LICENSE"));
        assertEquals(
            Files.readString(ProjectRoot.get().resolve("NOTICE")), read(jar, "META-INF/NOTICE"));
        for (String file : shippedFiles()) {
          assertTrue(
              jar.getEntry("META-INF/licenses/" + file) != null,
              jarPath.getFileName() + " ships META-INF/licenses/" + file);
        }
      }
      System.out.println(jarPath.getFileName() + " bundles " + bundled);
      Set<String> missing = new TreeSet<>(bundled);
      missing.removeAll(listed);
      assertEquals(
          Set.of(),
          missing,
          "bundled by " + jarPath.getFileName() + " but not in licenses/BUNDLED.md");
    }
  }

  /** The shaded jar of another Spark line's client module. */
  private static Path clientJar(String module) throws IOException {
    try (Stream<Path> files = Files.list(ProjectRoot.get().resolve(module + "/target"))) {
      return files
          .filter(f -> f.getFileName().toString().endsWith("-shaded.jar"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no " + module + " jar: run mvn verify"));
    }
  }

  private static String read(ZipFile jar, String name) throws IOException {
    ZipEntry entry = jar.getEntry(name);
    assertTrue(entry != null, name + " in " + jar.getName());
    try (InputStream in = jar.getInputStream(entry)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void assertApache(String license) {
    assertTrue(
        license != null
            && license.strip().startsWith("Apache License")
            && license.contains("Version 2.0, January 2004"),
        "the Apache License 2.0");
  }

  /** The artifacts that BUNDLED.md's section starting with {@code heading} names. */
  private static Set<String> listed(String heading) throws IOException {
    Set<String> artifacts = new TreeSet<>();
    boolean in = false;
    for (String line : Files.readAllLines(LICENSES.resolve("BUNDLED.md"))) {
      if (line.startsWith("## ")) {
        in = line.startsWith(heading);
      } else if (in && line.startsWith("| ") && !line.startsWith("| Component")) {
        Matcher m = ARTIFACT.matcher(line.split("\\|")[2]);
        while (m.find()) {
          artifacts.add(m.group(1));
        }
      }
    }
    assertTrue(!artifacts.isEmpty(), "BUNDLED.md has a section " + heading);
    return artifacts;
  }

  /** The license texts and notices BUNDLED.md cites. */
  private static Set<String> shippedFiles() throws IOException {
    Set<String> files = new TreeSet<>();
    Matcher m = SHIPPED_FILE.matcher(Files.readString(LICENSES.resolve("BUNDLED.md")));
    while (m.find()) {
      files.add(m.group(1));
    }
    return files;
  }
}
