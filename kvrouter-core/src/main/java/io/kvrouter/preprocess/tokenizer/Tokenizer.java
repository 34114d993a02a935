package io.kvrouter.preprocess.tokenizer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Turns text into token ids and back, exactly as the model's own tokenizer does.
 *
 * <p>Contract shared by every implementation:
 *
 * <ul>
 *   <li>{@link #encode} never truncates and adds nothing by itself (no BOS, no EOS): the chat
 *       template or the caller decides what goes into the prompt. Special tokens written in the
 *       text (for example {@code <|im_start|>}) are recognized and encoded as their single ids.
 *   <li>{@link #decode} works on a range of an array, so callers such as {@link
 *       IncrementalDetokenizer} can decode a small window of a long sequence without copying it.
 *       Byte sequences that are not valid UTF-8 decode to U+FFFD.
 *   <li>Implementations are immutable after construction and safe to use from many threads at once.
 * </ul>
 *
 * <p>Pure and synchronous: no Vert.x, no Netty. Encoding a long prompt costs CPU in proportion to
 * its length; callers on an event loop should move large inputs to a worker thread.
 */
public interface Tokenizer extends AutoCloseable {

  /** Encodes {@code text} into token ids, without truncation and without adding any token. */
  default int[] encode(String text) {
    return encode(text, false);
  }

  /**
   * Encodes {@code text} into token ids, without truncation.
   *
   * @param addSpecialTokens when true, the tokenizer adds the tokens its post-processor puts around
   *     a text (Llama 3.1's and Gemma's BOS), as Hugging Face's {@code add_special_tokens=True}
   *     does; a chat template writes them itself, so chat prompts pass false
   */
  int[] encode(String text, boolean addSpecialTokens);

  /**
   * Decodes {@code ids[from, to)} into text.
   *
   * @param skipSpecialTokens when true, special tokens (for example {@code <|im_end|>}) are left
   *     out of the text
   * @throws IndexOutOfBoundsException when the range is not inside {@code ids}
   * @throws IllegalArgumentException when an id is outside {@code [0, vocabularySize())}
   */
  String decode(int[] ids, int from, int to, boolean skipSpecialTokens);

  /** Decodes all of {@code ids}, keeping special tokens. */
  default String decode(int[] ids) {
    return decode(ids, 0, ids.length, false);
  }

  /** Decodes all of {@code ids}. */
  default String decode(int[] ids, boolean skipSpecialTokens) {
    return decode(ids, 0, ids.length, skipSpecialTokens);
  }

  /** True when {@code id} is a special token (one that {@code skipSpecialTokens} leaves out). */
  boolean isSpecial(int id);

  /**
   * The id of the token whose string is exactly {@code token} (for example {@code "<|im_end|>"}),
   * used to resolve the eos and bos tokens named in {@code tokenizer_config.json}.
   */
  Optional<Integer> tokenId(String token);

  /** The number of ids this tokenizer can produce: every id is in {@code [0, vocabularySize())}. */
  int vocabularySize();

  /** Releases native resources, if any. Using the tokenizer after closing it is an error. */
  @Override
  default void close() {}

  /**
   * The demo tokenizer: ids are the UTF-8 bytes (0 to 255) of the text. It has no special tokens.
   */
  static Tokenizer bytes() {
    return ByteTokenizer.INSTANCE;
  }

  /** Ids the piece cache of a loaded tokenizer keeps in all (about 4 bytes each, plus text). */
  long DEFAULT_SEGMENT_CACHE_TOKENS = 4_000_000;

  /**
   * Loads a Hugging Face {@code tokenizer.json} (the Rust {@code tokenizers} library through DJL's
   * bundled native binding; works offline). Byte-level BPE tokenizers (Qwen, Llama 3, DeepSeek V3,
   * gpt-oss, Mistral Nemo) encode prompts with our Java encoder, same ids, several times faster;
   * prompt pieces between chat markers are cached where the tokenizer allows it.
   *
   * @param tokenizerJson the path of a {@code tokenizer.json} file
   * @throws IOException when the file is missing, unreadable or not a valid tokenizer; the message
   *     names the file
   */
  static Tokenizer huggingFace(Path tokenizerJson) throws IOException {
    return huggingFace(tokenizerJson, DEFAULT_SEGMENT_CACHE_TOKENS);
  }

  /**
   * Loads a Hugging Face {@code tokenizer.json}.
   *
   * @param segmentCacheTokens how many ids of prompt pieces to remember (0 for no cache); used only
   *     for tokenizers where cutting at chat markers gives the same ids
   */
  static Tokenizer huggingFace(Path tokenizerJson, long segmentCacheTokens) throws IOException {
    HfTokenizer rust = HfTokenizer.load(tokenizerJson);
    ByteLevelBpe bpe;
    try {
      bpe = ByteLevelBpe.load(tokenizerJson);
    } catch (IOException | RuntimeException e) {
      rust.close();
      throw new IOException("Cannot load tokenizer " + tokenizerJson + ": " + e.getMessage(), e);
    }
    Tokenizer encoder = bpe == null ? rust : new JavaBpeTokenizer(rust, bpe);
    return segmentCacheTokens <= 0 || rust.segmentMarkers().isEmpty()
        ? encoder
        : new SegmentCachingTokenizer(encoder, rust.segmentMarkers(), segmentCacheTokens);
  }
}
