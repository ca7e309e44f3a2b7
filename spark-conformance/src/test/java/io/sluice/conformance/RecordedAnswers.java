package io.sluice.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The built-in shuffle's TPC-DS answers at a scale, recorded by {@link TpcdsAnswersTest} with
 * {@code -Dsluice.tpcds.record=true} under {@code src/test/resources/tpcds-answers/}, a file per
 * Spark version, scale and partition count, and compared with Sluice's on later runs, so that the
 * suite does not run every query twice. Each line is a JSON object: first the settings (checked on
 * reading), then one per query, its error or its rows; each value is written with its Java type's
 * letter ({@code i:42}, {@code d:0.5}, {@code D:1.50}), so that it is read back as the very object
 * Spark gave (a decimal with its scale, a double exactly).
 */
final class RecordedAnswers {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Java types of Spark's row values, each with its letter. */
  private static final Map<Class<?>, String> LETTERS =
      Map.ofEntries(
          Map.entry(Integer.class, "i"),
          Map.entry(Long.class, "l"),
          Map.entry(Short.class, "s"),
          Map.entry(Byte.class, "b"),
          Map.entry(Double.class, "d"),
          Map.entry(Float.class, "f"),
          Map.entry(BigDecimal.class, "D"),
          Map.entry(String.class, "S"),
          Map.entry(Boolean.class, "z"),
          Map.entry(Date.class, "t"),
          Map.entry(Timestamp.class, "T"));

  private RecordedAnswers() {}

  /**
   * The resource, and the file under the module's test resources, of a scale, a setting of {@code
   * spark.sql.shuffle.partitions} (a query that orders by a key with ties and takes the first rows
   * may take others with another) and a Spark version.
   */
  static String name(double scale, String shufflePartitions, String sparkVersion) {
    return "tpcds-answers/spark-"
        + sparkVersion
        + "-scale-"
        + BigDecimal.valueOf(scale).toPlainString()
        + "-partitions-"
        + shufflePartitions
        + ".jsonl";
  }

  /** The answers recorded at {@code scale} with {@code sparkVersion}, if there are any. */
  static Optional<Map<String, TpcdsOutcome>> load(
      double scale, String shufflePartitions, String sparkVersion) {
    return load(scale, shufflePartitions, sparkVersion, RecordedAnswers.class.getClassLoader());
  }

  /** As above, from the resources of {@code resources}. */
  static Optional<Map<String, TpcdsOutcome>> load(
      double scale, String shufflePartitions, String sparkVersion, ClassLoader resources) {
    String name = name(scale, shufflePartitions, sparkVersion);
    InputStream in = resources.getResourceAsStream(name);
    if (in == null) {
      return Optional.empty();
    }
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String first = lines.readLine();
      JsonNode header = first == null ? null : JSON.readTree(first);
      if (header == null
          || !sparkVersion.equals(header.path("spark").asText())
          || header.path("scale").asDouble() != scale
          || !shufflePartitions.equals(header.path("partitions").asText())) {
        throw new IllegalStateException(name + " does not start with its settings: " + first);
      }
      Map<String, TpcdsOutcome> answers = new LinkedHashMap<>();
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode query = JSON.readTree(line);
        if (query.hasNonNull("error")) {
          answers.put(
              query.get("query").asText(), new TpcdsOutcome(null, query.get("error").asText()));
        } else {
          List<Row> rows = new ArrayList<>();
          for (JsonNode row : query.get("rows")) {
            Object[] values = new Object[row.size()];
            for (int c = 0; c < values.length; c++) {
              values[c] = row.get(c).isNull() ? null : decode(row.get(c).asText());
            }
            rows.add(RowFactory.create(values));
          }
          answers.put(query.get("query").asText(), new TpcdsOutcome(rows, null));
        }
      }
      return Optional.of(answers);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the recorded answers " + name, e);
    }
  }

  /**
   * Writes {@code answers}, recorded at {@code scale} with {@code sparkVersion}, to {@code file}.
   */
  static void write(
      Path file,
      double scale,
      String shufflePartitions,
      String sparkVersion,
      Map<String, TpcdsOutcome> answers)
      throws IOException {
    Files.createDirectories(file.getParent());
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      ObjectNode header =
          JSON.createObjectNode()
              .put("spark", sparkVersion)
              .put("scale", scale)
              .put("partitions", shufflePartitions);
      out.write(JSON.writeValueAsString(header) + "\n");
      for (Map.Entry<String, TpcdsOutcome> answer : answers.entrySet()) {
        ObjectNode query = JSON.createObjectNode().put("query", answer.getKey());
        if (answer.getValue().error() != null) {
          query.put("error", answer.getValue().error());
        } else {
          ArrayNode rows = query.putArray("rows");
          for (Row row : answer.getValue().rows()) {
            ArrayNode values = rows.addArray();
            for (int c = 0; c < row.length(); c++) {
              Object v = row.get(c);
              if (v == null) {
                values.addNull();
              } else {
                values.add(encode(v));
              }
            }
          }
        }
        out.write(JSON.writeValueAsString(query) + "\n");
      }
    }
  }

  private static String encode(Object v) {
    String letter = LETTERS.get(v.getClass());
    if (letter == null) {
      throw new IllegalStateException(
          "a value of a type the recording does not know: " + v.getClass().getName());
    }
    // BigDecimal's and Instant's strings give back the very value: a decimal with its scale, a
    // timestamp whatever the time zone.
    Object exact = v instanceof Timestamp t ? t.toInstant() : v;
    return letter + ":" + exact;
  }

  private static Object decode(String value) {
    String text = value.substring(2);
    return switch (value.charAt(0)) {
      case 'i' -> Integer.valueOf(text);
      case 'l' -> Long.valueOf(text);
      case 's' -> Short.valueOf(text);
      case 'b' -> Byte.valueOf(text);
      case 'd' -> Double.valueOf(text);
      case 'f' -> Float.valueOf(text);
      case 'D' -> new BigDecimal(text);
      case 'S' -> text;
      case 'z' -> Boolean.valueOf(text);
      case 't' -> Date.valueOf(text);
      case 'T' -> Timestamp.from(Instant.parse(text));
      default ->
          throw new IllegalStateException(
              String.format(Locale.ROOT, "an unknown type letter in the recorded value %s", value));
    };
  }
}
