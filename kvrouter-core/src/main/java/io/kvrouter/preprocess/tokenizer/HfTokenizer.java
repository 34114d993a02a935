package io.kvrouter.preprocess.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A Hugging Face {@code tokenizer.json} tokenizer: the Rust {@code tokenizers} crate through DJL's
 * JNI binding ({@code ai.djl.huggingface:tokenizers}, whose jar bundles the native library, so it
 * works offline).
 *
 * <p>Options: special tokens are added only when a caller asks ({@link #encode(String, boolean)}:
 * completions prompts, as Hugging Face's {@code add_special_tokens=True}; a chat template writes
 * every special token itself), {@code truncation=false} (DJL otherwise truncates to 512 tokens),
 * {@code padding=false}. The tokenizer is created from the {@code tokenizer.json} file alone, so
 * DJL applies none of the Python-side extras it would read from {@code tokenizer_config.json}
 * ({@code clean_up_tokenization_spaces}, {@code add_prefix_space}, lower-casing): what comes out is
 * exactly what the Rust library produces, as in Dynamo's frontend.
 *
 * <p><b>Thread safety.</b> One instance is shared by all threads. DJL's {@code encode} and {@code
 * decode} keep no per-call state on the Java side (they read final configuration fields and pass
 * the native handle) and call the Rust {@code Tokenizer::encode}/{@code decode}, which take {@code
 * &self} ({@code Tokenizer} is {@code Send + Sync}; the BPE merge cache sits behind a lock). The
 * only mutating native calls (truncation and padding setup) happen once inside {@code
 * HuggingFaceTokenizer.newInstance}, before the instance is published. {@code
 * HfTokenizerTest#concurrentEncodeAndDecodeMatchSingleThreaded} exercises this. {@link #close()}
 * waits for calls in flight; calls after it throw {@link IllegalStateException}.
 *
 * <p><b>Network.</b> DJL's factory calls a telemetry "call home" (it probes the EC2 metadata
 * address). This class sets the system properties {@code ai.djl.offline=true} and {@code
 * OPT_OUT_TRACKING=true} before DJL is first touched, unless the operator already set them, so
 * loading a tokenizer never leaves the machine.
 */
final class HfTokenizer implements Tokenizer {

  static {
    if (System.getenv("DJL_OFFLINE") == null && System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
    if (System.getenv("OPT_OUT_TRACKING") == null
        && System.getProperty("OPT_OUT_TRACKING") == null) {
      System.setProperty("OPT_OUT_TRACKING", "true");
    }
  }

  private static final Map<String, String> OPTIONS =
      Map.of(
          "addSpecialTokens", "false",
          "truncation", "false",
          "padding", "false",
          "modelMaxLength", String.valueOf(Integer.MAX_VALUE - 8));

  private final Path source;
  private final HuggingFaceTokenizer delegate;
  private final int vocabularySize;
  private final Map<String, Integer> addedTokens;
  private final BitSet special;
  private final List<String> segmentMarkers;
  private final Map<String, Optional<Integer>> vocabLookups = new ConcurrentHashMap<>();

  /**
   * Guards the native handle: encode/decode hold the read lock (they run concurrently), close takes
   * the write lock, so closing waits for calls in flight and later calls fail cleanly instead of
   * using freed native memory (which crashes the JVM).
   */
  private final ReentrantReadWriteLock handleLock = new ReentrantReadWriteLock();

  private boolean closed; // guarded by handleLock

  private HfTokenizer(
      Path source,
      HuggingFaceTokenizer delegate,
      int vocabularySize,
      Map<String, Integer> addedTokens,
      BitSet special,
      List<String> segmentMarkers) {
    this.source = source;
    this.delegate = delegate;
    this.vocabularySize = vocabularySize;
    this.addedTokens = Map.copyOf(addedTokens);
    this.special = special;
    this.segmentMarkers = List.copyOf(segmentMarkers);
  }

  static HfTokenizer load(Path tokenizerJson) throws IOException {
    Objects.requireNonNull(tokenizerJson, "tokenizerJson");
    if (!Files.isRegularFile(tokenizerJson)) {
      throw new NoSuchFileException(
          tokenizerJson.toString(), null, "tokenizer file not found (expected a tokenizer.json)");
    }
    Metadata meta;
    try {
      meta = Metadata.read(tokenizerJson);
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          "Cannot read tokenizer "
              + tokenizerJson
              + ": not a valid tokenizer.json ("
              + e.getMessage()
              + ")",
          e);
    }
    HuggingFaceTokenizer delegate;
    try {
      delegate = HuggingFaceTokenizer.newInstance(tokenizerJson, OPTIONS);
    } catch (IOException | RuntimeException e) {
      throw new IOException("Cannot load tokenizer " + tokenizerJson + ": " + e.getMessage(), e);
    }
    return new HfTokenizer(
        tokenizerJson,
        delegate,
        meta.vocabularySize,
        meta.addedTokens,
        meta.special,
        meta.segmentMarkers());
  }

  /**
   * Special tokens before which a text can be cut and its pieces encoded apart with the same ids as
   * the whole (see {@link SegmentCachingTokenizer}); empty when this tokenizer's pipeline does not
   * allow it.
   */
  List<String> segmentMarkers() {
    return segmentMarkers;
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) {
    Objects.requireNonNull(text, "text");
    long[] ids;
    handleLock.readLock().lock();
    try {
      ensureOpen();
      ids = delegate.encode(text, addSpecialTokens, false).getIds();
    } finally {
      handleLock.readLock().unlock();
    }
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public String decode(int[] ids, int from, int to, boolean skipSpecialTokens) {
    Objects.checkFromToIndex(from, to, ids.length);
    long[] window = new long[to - from];
    for (int i = from; i < to; i++) {
      int id = ids[i];
      if (id < 0 || id >= vocabularySize) {
        throw new IllegalArgumentException(
            "token id " + id + " is outside the vocabulary [0, " + vocabularySize + ")");
      }
      window[i - from] = id;
    }
    handleLock.readLock().lock();
    try {
      ensureOpen();
      return delegate.decode(window, skipSpecialTokens);
    } finally {
      handleLock.readLock().unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("tokenizer " + source + " is closed");
    }
  }

  @Override
  public boolean isSpecial(int id) {
    return id >= 0 && special.get(id);
  }

  @Override
  public Optional<Integer> tokenId(String token) {
    Objects.requireNonNull(token, "token");
    Integer added = addedTokens.get(token);
    if (added != null) {
      return Optional.of(added);
    }
    // Rare (eos/bos are almost always added tokens): look the string up in the model's vocab.
    return vocabLookups.computeIfAbsent(token, this::scanVocab);
  }

  private Optional<Integer> scanVocab(String token) {
    try {
      return Metadata.findInVocab(source, token);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot re-read tokenizer " + source, e);
    }
  }

  @Override
  public int vocabularySize() {
    return vocabularySize;
  }

  @Override
  public void close() {
    handleLock.writeLock().lock();
    try {
      if (!closed) {
        closed = true;
        delegate.close();
      }
    } finally {
      handleLock.writeLock().unlock();
    }
  }

  @Override
  public String toString() {
    return "HfTokenizer[" + source + ", vocabulary " + vocabularySize + "]";
  }

  /** What the tokenizer.json says about ids, read with a streaming parser (the files are large). */
  private static final class Metadata {
    private static final JsonFactory JSON = new JsonFactory();

    private static final ObjectMapper TREES = new ObjectMapper();

    int vocabularySize;
    final Map<String, Integer> addedTokens = new HashMap<>();
    final BitSet special = new BitSet();

    /** Special tokens matched on the raw text, with no whitespace stripping around them. */
    final List<String> plainSpecialTokens = new ArrayList<>();

    JsonNode normalizer;
    JsonNode preTokenizer;

    static Metadata read(Path file) throws IOException {
      Metadata m = new Metadata();
      int maxId = -1;
      try (JsonParser p = JSON.createParser(file.toFile())) {
        expect(p.nextToken(), JsonToken.START_OBJECT, "the file must be a JSON object");
        boolean sawModel = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken value = p.nextToken();
          if ("added_tokens".equals(field) && value == JsonToken.START_ARRAY) {
            maxId = Math.max(maxId, m.readAddedTokens(p));
          } else if ("normalizer".equals(field)) {
            m.normalizer = TREES.readTree(p);
          } else if ("pre_tokenizer".equals(field)) {
            m.preTokenizer = TREES.readTree(p);
          } else if ("model".equals(field) && value == JsonToken.START_OBJECT) {
            sawModel = true;
            maxId = Math.max(maxId, readModelMaxId(p));
          } else {
            p.skipChildren();
          }
        }
        if (!sawModel) {
          throw new IOException("no \"model\" object");
        }
      }
      if (maxId < 0) {
        throw new IOException("the vocabulary is empty");
      }
      m.vocabularySize = maxId + 1;
      return m;
    }

    /**
     * The plain special tokens, when cutting before them cannot change the ids: Hugging Face's
     * tokenizer splits the text at added tokens matched on the raw text before anything else, and
     * encodes the pieces apart; they stay apart here only if nothing later looks across a piece
     * boundary or at a piece's position. That holds for no normalizer or NFC (which does not
     * compose across the ASCII start of a marker) and for pre-tokenizers that only split (regex
     * {@code Split}, {@code ByteLevel} without a prefix space); Metaspace, prefix spaces and other
     * normalizers are left out. A marker inside another added token is left out too.
     */
    List<String> segmentMarkers() {
      boolean normalizerOk =
          normalizer == null
              || normalizer.isNull()
              || "NFC".equals(normalizer.path("type").asText())
              || ("Sequence".equals(normalizer.path("type").asText())
                  && normalizer.path("normalizers").isEmpty());
      if (!normalizerOk || !splitsOnly(preTokenizer)) {
        return List.of();
      }
      List<String> markers = new ArrayList<>();
      for (String token : plainSpecialTokens) {
        boolean insideAnother =
            addedTokens.keySet().stream()
                .anyMatch(other -> !other.equals(token) && other.contains(token));
        if (!insideAnother && !token.isEmpty()) {
          markers.add(token);
        }
      }
      return markers;
    }

    private static boolean splitsOnly(JsonNode pre) {
      if (pre == null || pre.isNull()) {
        return false;
      }
      String type = pre.path("type").asText();
      if ("Sequence".equals(type)) {
        for (JsonNode step : pre.path("pretokenizers")) {
          if (!splitsOnly(step)) {
            return false;
          }
        }
        return true;
      }
      return "Split".equals(type)
          || ("ByteLevel".equals(type) && !pre.path("add_prefix_space").asBoolean(true));
    }

    private int readAddedTokens(JsonParser p) throws IOException {
      int maxId = -1;
      while (p.nextToken() == JsonToken.START_OBJECT) {
        Integer id = null;
        String content = null;
        boolean isSpecial = false;
        boolean plain = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          JsonToken v = p.nextToken();
          switch (f) {
            case "id" -> id = p.getIntValue();
            case "content" -> content = p.getText();
            case "special" -> isSpecial = v == JsonToken.VALUE_TRUE;
            case "lstrip", "rstrip", "single_word", "normalized" ->
                plain &= v != JsonToken.VALUE_TRUE;
            default -> p.skipChildren();
          }
        }
        if (id == null || content == null) {
          throw new IOException("an added_tokens entry lacks \"id\" or \"content\"");
        }
        addedTokens.put(content, id);
        if (isSpecial) {
          special.set(id);
          if (plain) {
            plainSpecialTokens.add(content);
          }
        }
        maxId = Math.max(maxId, id);
      }
      return maxId;
    }

    /** Reads a "model" object and returns the largest id in its vocab. */
    private static int readModelMaxId(JsonParser p) throws IOException {
      int maxId = -1;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String f = p.currentName();
        JsonToken v = p.nextToken();
        if ("vocab".equals(f) && v == JsonToken.START_OBJECT) {
          // BPE, WordPiece, WordLevel: {"token": id, ...}
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            p.nextToken();
            maxId = Math.max(maxId, p.getIntValue());
          }
        } else if ("vocab".equals(f) && v == JsonToken.START_ARRAY) {
          // Unigram: [["piece", score], ...], the id is the index
          int index = 0;
          while (p.nextToken() != JsonToken.END_ARRAY) {
            p.skipChildren();
            index++;
          }
          maxId = Math.max(maxId, index - 1);
        } else {
          p.skipChildren();
        }
      }
      return maxId;
    }

    static Optional<Integer> findInVocab(Path file, String token) throws IOException {
      try (JsonParser p = JSON.createParser(file.toFile())) {
        p.nextToken();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken value = p.nextToken();
          if (!"model".equals(field) || value != JsonToken.START_OBJECT) {
            p.skipChildren();
            continue;
          }
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = p.nextToken();
            if ("vocab".equals(f) && v == JsonToken.START_OBJECT) {
              while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if (name.equals(token)) {
                  return Optional.of(p.getIntValue());
                }
              }
            } else if ("vocab".equals(f) && v == JsonToken.START_ARRAY) {
              int index = 0;
              while (p.nextToken() == JsonToken.START_ARRAY) {
                p.nextToken();
                if (token.equals(p.getText())) {
                  return Optional.of(index);
                }
                p.skipChildren();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                  p.skipChildren();
                }
                index++;
              }
            } else {
              p.skipChildren();
            }
          }
        }
      }
      return Optional.empty();
    }

    private static void expect(JsonToken actual, JsonToken expected, String what)
        throws IOException {
      if (actual != expected) {
        throw new IOException(what);
      }
    }
  }
}
