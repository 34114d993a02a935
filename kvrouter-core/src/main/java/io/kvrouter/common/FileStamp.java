package io.kvrouter.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;

/**
 * What some files look like from outside (each one's modification time and size), to tell cheaply
 * whether any changed since the last look: a watched file (API keys, a certificate) is read again
 * only then.
 */
public record FileStamp(List<Object> parts) {
  public FileStamp {
    parts = List.copyOf(parts);
  }

  /** The stamp of {@code files} now. */
  public static FileStamp of(Path... files) throws IOException {
    List<Object> parts = new ArrayList<>();
    for (Path file : files) {
      FileTime time = Files.getLastModifiedTime(file);
      parts.add(time);
      parts.add(Files.size(file));
    }
    return new FileStamp(parts);
  }
}
