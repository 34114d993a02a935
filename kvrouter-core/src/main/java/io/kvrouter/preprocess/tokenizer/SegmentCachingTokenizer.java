package io.kvrouter.preprocess.tokenizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tokenizer that cuts a prompt before each chat marker ({@code <|im_start|>}, {@code
 * <|start_header_id|>}, ...) and remembers each piece's ids, so a multi-turn chat, whose prompt
 * repeats every earlier message, pays only for its new messages.
 *
 * <pre>
 *   "&lt;|im_start|&gt;system\nBe brief.&lt;|im_end|&gt;\n" | "&lt;|im_start|&gt;user\nHi&lt;|im_end|&gt;\n" | "&lt;|im_start|&gt;assistant\n"
 *    ^ cached since turn 1                        ^ cached since turn 1         ^ new
 * </pre>
 *
 * <p>The ids are the same as the whole text's: Hugging Face's tokenizer itself splits the text at
 * added tokens first and encodes the pieces apart, and {@link HfTokenizer#segmentMarkers} only
 * names markers for pipelines where nothing later looks across a piece boundary. {@code
 * SegmentCachingTokenizerTest} checks the equality on rendered chats of every test model. Only
 * {@code encode(text, false)} (chat prompts) goes through pieces; with special tokens added the
 * whole text is encoded, since a post-processor's tokens belong at its ends.
 *
 * <p>The cache keeps the most recently used pieces up to {@code capacityTokens} ids in all;
 * thread-safe (one lock around lookups, never held while encoding).
 */
final class SegmentCachingTokenizer extends EncodingDecorator {
  /** Markers by their first character, to find them in one scan of the text. */
  private final Map<Character, List<String>> markers = new HashMap<>();

  private final Pieces cache;

  SegmentCachingTokenizer(Tokenizer delegate, List<String> markers, long capacityTokens) {
    super(delegate);
    for (String marker : markers) {
      this.markers.computeIfAbsent(marker.charAt(0), c -> new ArrayList<>()).add(marker);
    }
    this.cache = new Pieces(capacityTokens);
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) {
    if (addSpecialTokens) {
      return delegate.encode(text, true);
    }
    List<int[]> pieces = new ArrayList<>();
    int total = 0;
    int start = 0;
    int i = 0;
    while (i < text.length()) {
      int marker = markerAt(text, i);
      if (marker == 0) {
        i++;
        continue;
      }
      if (i > start) {
        int[] ids = piece(text.substring(start, i));
        pieces.add(ids);
        total += ids.length;
        start = i;
      }
      i += marker;
    }
    if (start < text.length() || pieces.isEmpty()) {
      int[] ids = piece(text.substring(start));
      pieces.add(ids);
      total += ids.length;
    }
    if (pieces.size() == 1) {
      return pieces.get(0).clone();
    }
    int[] out = new int[total];
    int at = 0;
    for (int[] ids : pieces) {
      System.arraycopy(ids, 0, out, at, ids.length);
      at += ids.length;
    }
    return out;
  }

  /** The length of the marker that starts at {@code i}, or 0. */
  private int markerAt(String text, int i) {
    List<String> candidates = markers.get(text.charAt(i));
    if (candidates != null) {
      for (String marker : candidates) {
        if (text.startsWith(marker, i)) {
          return marker.length();
        }
      }
    }
    return 0;
  }

  private int[] piece(String text) {
    int[] ids = cache.get(text);
    if (ids == null) {
      ids = delegate.encode(text, false);
      cache.put(text, ids);
    }
    return ids;
  }

  @Override
  public String toString() {
    return "SegmentCaching[" + delegate + "]";
  }

  /** Least recently used pieces, bounded by their ids in all. */
  private static final class Pieces {
    private final long capacity;
    private long size;
    private final LinkedHashMap<String, int[]> map = new LinkedHashMap<>(256, 0.75f, true);

    Pieces(long capacity) {
      this.capacity = capacity;
    }

    synchronized int[] get(String text) {
      return map.get(text);
    }

    synchronized void put(String text, int[] ids) {
      if (ids.length > capacity) {
        return;
      }
      int[] old = map.put(text, ids);
      size += ids.length - (old == null ? 0 : old.length);
      var eldest = map.entrySet().iterator();
      while (size > capacity && eldest.hasNext()) {
        size -= eldest.next().getValue().length;
        eldest.remove();
      }
    }
  }
}
