package io.kvrouter.preprocess.tokenizer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A byte-level BPE encoder in Java for the {@code tokenizer.json} shape of Qwen, Llama 3, DeepSeek
 * V3, gpt-oss and Mistral Nemo: added tokens split out first, then NFC (or no normalizer), then
 * {@code Split} regexes with {@code Isolated} behaviour, then {@code ByteLevel} without a prefix
 * space, then BPE over merge ranks (with {@code ignore_merges}). Any other pipeline, or a split
 * regex outside what {@link SplitPattern} accepts, is not loaded ({@link #load} returns null) and
 * stays with the Rust tokenizer.
 *
 * <p>Unicode data follows the Rust library, not the JDK: NFC at its normalization version ({@link
 * Nfc}), and the regexes' {@code \p{..}} classes at its regex engine's version ({@link RegexText},
 * {@link UnicodeTables}).
 *
 * <p>Thread-safe: immutable tables and a concurrent cache of each pre-tokenized word's ids (up to a
 * million words), which is what makes repeated text cheap.
 */
final class ByteLevelBpe {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Integer> vocab;
  private final Map<String, Integer> ranks;
  private final boolean ignoreMerges;
  private final boolean nfc;
  private final List<Pattern> splits;

  /** Added tokens by first character, longest first, matched on the raw text. */
  private final Map<Character, List<Map.Entry<String, Integer>>> added = new HashMap<>();

  private final Map<String, int[]> cache = new ConcurrentHashMap<>();
  private static final String[] BYTE_CHARS = byteChars();

  private ByteLevelBpe(
      Map<String, Integer> vocab,
      Map<String, Integer> ranks,
      boolean ignoreMerges,
      boolean nfc,
      List<Pattern> splits,
      List<Map.Entry<String, Integer>> added) {
    this.vocab = vocab;
    this.ranks = ranks;
    this.ignoreMerges = ignoreMerges;
    this.nfc = nfc;
    this.splits = splits;
    for (Map.Entry<String, Integer> token : added) {
      this.added.computeIfAbsent(token.getKey().charAt(0), c -> new ArrayList<>()).add(token);
    }
  }

  /**
   * The encoder for {@code tokenizerJson}, or null when its pipeline is not of this shape. The file
   * is streamed: the small sections are read first, and when they already rule the pipeline out the
   * model's vocabulary and merges (nearly all of the file) are never parsed.
   */
  static ByteLevelBpe load(Path tokenizerJson) throws IOException {
    JsonNode normalizer = null;
    JsonNode preTokenizer = null;
    JsonNode addedTokens = null;
    JsonNode model = null;
    try (JsonParser p = JSON.getFactory().createParser(tokenizerJson.toFile())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        switch (field) {
          case "normalizer" -> normalizer = JSON.readTree(p);
          case "pre_tokenizer" -> preTokenizer = JSON.readTree(p);
          case "added_tokens" -> addedTokens = JSON.readTree(p);
          case "model" -> {
            if (preTokenizer != null && (splits(preTokenizer) == null || !plain(normalizer))) {
              return null;
            }
            model = JSON.readTree(p);
          }
          default -> p.skipChildren();
        }
      }
    }
    return model == null ? null : of(normalizer, preTokenizer, addedTokens, model);
  }

  private static ByteLevelBpe of(
      JsonNode normalizer, JsonNode preTokenizer, JsonNode addedTokens, JsonNode model) {
    List<Pattern> splits = splits(preTokenizer);
    if (!"BPE".equals(model.path("type").asText())
        || model.path("byte_fallback").asBoolean()
        || splits == null
        || !plain(normalizer)) {
      return null;
    }
    boolean identity = !isNfc(normalizer);
    List<Map.Entry<String, Integer>> added = new ArrayList<>();
    for (JsonNode token : addedTokens == null ? JSON.createArrayNode() : addedTokens) {
      if (token.path("lstrip").asBoolean()
          || token.path("rstrip").asBoolean()
          || token.path("single_word").asBoolean()
          || (token.path("normalized").asBoolean() && !identity)) {
        return null;
      }
      if (!token.path("content").asText().isEmpty()) {
        added.add(Map.entry(token.path("content").asText(), token.path("id").asInt()));
      }
    }
    added.sort(
        Comparator.comparingInt((Map.Entry<String, Integer> e) -> e.getKey().length()).reversed());
    Map<String, Integer> vocab = new HashMap<>();
    model.path("vocab").fields().forEachRemaining(e -> vocab.put(e.getKey(), e.getValue().asInt()));
    Map<String, Integer> ranks = new HashMap<>();
    int rank = 0;
    for (JsonNode merge : model.path("merges")) {
      String pair =
          merge.isArray() ? merge.get(0).asText() + " " + merge.get(1).asText() : merge.asText();
      ranks.putIfAbsent(pair, rank++);
    }
    return new ByteLevelBpe(
        vocab, ranks, model.path("ignore_merges").asBoolean(), isNfc(normalizer), splits, added);
  }

  private static boolean isNfc(JsonNode normalizer) {
    return normalizer != null && "NFC".equals(normalizer.path("type").asText());
  }

  /** No normalizer, an empty sequence of them, or NFC. */
  private static boolean plain(JsonNode normalizer) {
    return normalizer == null
        || normalizer.isNull()
        || isNfc(normalizer)
        || ("Sequence".equals(normalizer.path("type").asText())
            && normalizer.path("normalizers").isEmpty());
  }

  /**
   * The {@code Split} regexes of a pre-tokenizer that is a sequence of {@code Isolated} splits
   * ending in {@code ByteLevel} without a prefix space or regex of its own; else null.
   */
  private static List<Pattern> splits(JsonNode pre) {
    JsonNode steps =
        pre != null && "Sequence".equals(pre.path("type").asText())
            ? pre.path("pretokenizers")
            : null;
    if (steps == null) {
      return null;
    }
    List<Pattern> splits = new ArrayList<>();
    boolean byteLevel = false;
    for (JsonNode step : steps) {
      String type = step.path("type").asText();
      if ("Split".equals(type)
          && "Isolated".equals(step.path("behavior").asText())
          && !step.path("invert").asBoolean()
          && step.path("pattern").has("Regex")
          && !byteLevel) {
        Pattern split = SplitPattern.compile(step.path("pattern").path("Regex").asText());
        if (split == null) {
          return null;
        }
        splits.add(split);
      } else if ("ByteLevel".equals(type)
          && !step.path("add_prefix_space").asBoolean()
          && !step.path("use_regex").asBoolean()) {
        byteLevel = true;
      } else {
        return null;
      }
    }
    return byteLevel ? splits : null;
  }

  int[] encode(String text) {
    IntList out = new IntList(text.length() / 3 + 8);
    int start = 0;
    int i = 0;
    while (i < text.length()) {
      Map.Entry<String, Integer> token = addedAt(text, i);
      if (token == null) {
        i++;
        continue;
      }
      encodeSection(text.substring(start, i), out);
      out.add(token.getValue());
      i += token.getKey().length();
      start = i;
    }
    encodeSection(text.substring(start), out);
    return out.toArray();
  }

  private Map.Entry<String, Integer> addedAt(String text, int i) {
    List<Map.Entry<String, Integer>> candidates = added.get(text.charAt(i));
    if (candidates == null) {
      return null;
    }
    for (Map.Entry<String, Integer> token : candidates) {
      if (text.startsWith(token.getKey(), i)) {
        return token;
      }
    }
    return null;
  }

  private void encodeSection(String section, IntList out) {
    if (section.isEmpty()) {
      return;
    }
    String normalized = nfc ? Nfc.normalize(section) : section;
    RegexText view = RegexText.of(normalized);
    // pieces as [start, end) pairs of view.text, each split cutting the previous split's pieces
    IntList pieces = new IntList(8);
    pieces.add(0);
    pieces.add(view.text.length());
    for (Pattern split : splits) {
      IntList next = new IntList(pieces.size() * 2);
      Matcher m = split.matcher(view.text);
      for (int p = 0; p < pieces.size(); p += 2) {
        isolate(m, pieces.get(p), pieces.get(p + 1), next);
      }
      pieces = next;
    }
    for (int p = 0; p < pieces.size(); p += 2) {
      String piece =
          normalized.substring(view.original(pieces.get(p)), view.original(pieces.get(p + 1)));
      for (int id : word(piece)) {
        out.add(id);
      }
    }
  }

  /**
   * Hugging Face's {@code Isolated} split of {@code [start, end)}: every match and every gap
   * between matches. The region's bounds are opaque, so the pattern sees the piece as a whole text,
   * as when the Rust library splits a piece of its own.
   */
  private static void isolate(Matcher m, int start, int end, IntList out) {
    m.region(start, end);
    int last = start;
    while (m.find()) {
      if (m.end() == m.start()) {
        continue;
      }
      if (m.start() > last) {
        out.add(last);
        out.add(m.start());
      }
      out.add(m.start());
      out.add(m.end());
      last = m.end();
    }
    if (last < end) {
      out.add(last);
      out.add(end);
    }
  }

  private int[] word(String piece) {
    int[] cached = cache.get(piece);
    if (cached != null) {
      return cached;
    }
    byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
    StringBuilder mapped = new StringBuilder(bytes.length);
    List<String> symbols = new ArrayList<>(bytes.length);
    for (byte b : bytes) {
      String c = BYTE_CHARS[b & 0xff];
      mapped.append(c);
      symbols.add(c);
    }
    int[] ids;
    Integer whole = ignoreMerges ? vocab.get(mapped.toString()) : null;
    if (whole != null) {
      ids = new int[] {whole};
    } else {
      merge(symbols);
      ids = new int[symbols.size()];
      for (int i = 0; i < ids.length; i++) {
        Integer id = vocab.get(symbols.get(i));
        if (id == null) {
          throw new IllegalStateException("no id for BPE symbol " + symbols.get(i));
        }
        ids[i] = id;
      }
    }
    if (cache.size() < 1_000_000) {
      cache.put(piece, ids);
    }
    return ids;
  }

  /** Merges the adjacent pair of lowest rank until no pair has a rank. */
  private void merge(List<String> symbols) {
    while (symbols.size() > 1) {
      int best = -1;
      int bestRank = Integer.MAX_VALUE;
      for (int i = 0; i + 1 < symbols.size(); i++) {
        Integer r = ranks.get(symbols.get(i) + " " + symbols.get(i + 1));
        if (r != null && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) {
        return;
      }
      symbols.set(best, symbols.get(best) + symbols.get(best + 1));
      symbols.remove(best + 1);
    }
  }

  /** GPT-2's map from bytes to printable characters. */
  private static String[] byteChars() {
    String[] chars = new String[256];
    int n = 0;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      chars[b] = printable ? String.valueOf((char) b) : String.valueOf((char) (256 + n++));
    }
    return chars;
  }

  /** A growable int array. */
  private static final class IntList {
    private int[] items;
    private int size;

    IntList(int capacity) {
      items = new int[Math.max(capacity, 8)];
    }

    void add(int value) {
      if (size == items.length) {
        items = java.util.Arrays.copyOf(items, size * 2);
      }
      items[size++] = value;
    }

    int get(int index) {
      return items[index];
    }

    int size() {
      return size;
    }

    int[] toArray() {
      return java.util.Arrays.copyOf(items, size);
    }
  }
}
