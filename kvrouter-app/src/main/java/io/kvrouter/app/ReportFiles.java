package io.kvrouter.app;

import io.kvrouter.tools.report.HtmlReport;
import io.kvrouter.tools.report.ResultsJson;
import io.kvrouter.tools.report.RunReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code simulate} and {@code bench} leave a run: {@code results.json}, {@code report.html}.
 */
final class ReportFiles {
  private ReportFiles() {}

  /** Writes both files into {@code dir}, creating it if needed. */
  static void write(RunReport report, Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
    }
    ResultsJson.write(report, dir.resolve("results.json"));
    HtmlReport.write(report, dir.resolve("report.html"));
  }
}
