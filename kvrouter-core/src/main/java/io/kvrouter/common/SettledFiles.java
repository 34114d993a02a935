package io.kvrouter.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Files watched for a change that has settled (API keys, a certificate and its key): look after
 * look, it says when they differ from the version last taken and are still as they were at the look
 * before, so a file being written, or two files renewed one after the other, is not taken half-way.
 * A version is told by each file's modification time and size; a file that cannot be read is a
 * version too (absent), so a deletion is a change.
 */
public final class SettledFiles {
  private static final String ABSENT = "absent";

  private final List<Path> files;

  /** The version at the last look, and the one last taken (null: none yet). */
  private List<Object> last;

  private List<Object> taken;

  private SettledFiles(List<Path> files, List<Object> taken) {
    this.files = files;
    this.last = taken;
    this.taken = taken;
  }

  /** Watches {@code files}, whose present version is taken already; stats them here. */
  public static SettledFiles takenNow(Path... files) {
    List<Path> watched = List.of(files);
    return new SettledFiles(watched, version(watched));
  }

  /** Watches {@code files} with no version taken yet: the first settled look is a change. */
  public static SettledFiles untaken(Path... files) {
    return new SettledFiles(List.of(files), null);
  }

  /**
   * One look (it stats the files: not for an event loop): true when they changed since the version
   * taken and have settled; that version counts as taken from now.
   */
  public synchronized boolean look() {
    List<Object> now = version(files);
    boolean settled = now.equals(last);
    last = now;
    if (!settled || now.equals(taken)) {
      return false;
    }
    taken = now;
    return true;
  }

  private static List<Object> version(List<Path> files) {
    List<Object> parts = new ArrayList<>();
    for (Path file : files) {
      try {
        parts.add(List.of(Files.getLastModifiedTime(file), Files.size(file)));
      } catch (IOException e) {
        parts.add(ABSENT);
      }
    }
    return parts;
  }
}
