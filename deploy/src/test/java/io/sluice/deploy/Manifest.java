package io.sluice.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One YAML document of a Kubernetes manifest file under {@code deploy/kubernetes/}. */
record Manifest(Path file, int index, JsonNode document) {
  /** Tests run in the module's directory, {@code deploy/}. */
  static final Path KUBERNETES_DIR = Path.of("kubernetes").toAbsolutePath();

  /** Every non-empty document of every {@code .yaml} file under {@code dir}, file by file. */
  static List<Manifest> readAll(Path dir) {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<Manifest> all = new ArrayList<>();
    try (var files = Files.walk(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        try (var docs = yaml.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
          int index = 0;
          while (docs.hasNext()) {
            JsonNode doc = docs.next();
            if (doc != null && !doc.isNull() && !doc.isEmpty()) {
              all.add(new Manifest(file, index, doc));
            }
            index++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all;
  }

  static Manifest only(List<Manifest> manifests, String kind, String name) {
    List<Manifest> found =
        manifests.stream().filter(m -> kind.equals(m.kind()) && name.equals(m.name())).toList();
    assertEquals(1, found.size(), kind + " " + name);
    return found.get(0);
  }

  static List<Manifest> ofKind(List<Manifest> manifests, String kind) {
    return manifests.stream().filter(m -> kind.equals(m.kind())).toList();
  }

  String kind() {
    return document.path("kind").asText();
  }

  String name() {
    return document.path("metadata").path("name").asText();
  }

  @Override
  public String toString() {
    return KUBERNETES_DIR.relativize(file)
        + " document "
        + index
        + " ("
        + kind()
        + " "
        + name()
        + ")";
  }
}
