package io.kvrouter.app;

import io.kvrouter.sim.report.RunReport;
import java.nio.file.Path;

final class ReportFiles {
  static void write(RunReport report, Path dir) {
    throw new UnsupportedOperationException("TEMP until report branch merges");
  }
}
