package io.kvrouter.sim.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.sim.report.RunReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a run's report goes: {@code DIR/results.json} and {@code DIR/report.html}. */
public final class BenchOutput {
  private BenchOutput() {}

  /** Writes the report's files into {@code dir}, creating it if needed. */
  public static void write(RunReport report, Path dir) throws IOException {
    Files.createDirectories(dir);
    // PLACEHOLDER until sim.report's writers are merged; replace with:
    //   io.kvrouter.sim.report.ResultsJson.write(report, dir.resolve("results.json"));
    //   io.kvrouter.sim.report.HtmlReport.write(report, dir.resolve("report.html"));
    new ObjectMapper()
        .writerWithDefaultPrettyPrinter()
        .writeValue(dir.resolve("results.json").toFile(), report);
  }
}
