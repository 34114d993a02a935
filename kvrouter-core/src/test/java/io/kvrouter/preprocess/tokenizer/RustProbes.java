package io.kvrouter.preprocess.tokenizer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tiny {@code tokenizer.json} files that make the Rust library show one step of its pipeline, so
 * tests can hold our Unicode data to the library's own: which code points a regex class matches,
 * and what its NFC gives.
 */
final class RustProbes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RustProbes() {}

  /**
   * A tokenizer that drops every match of {@code regex} and gives the bytes of the rest as ids, so
   * {@code decode(encode(text))} is the text without the code points the regex matches.
   */
  static HfTokenizer removing(String regex, Path dir) throws IOException {
    ObjectNode root = bytes();
    ObjectNode split = JSON.createObjectNode();
    split.put("type", "Split");
    split.putObject("pattern").put("Regex", regex);
    split.put("behavior", "Removed");
    split.put("invert", false);
    ObjectNode sequence = root.putObject("pre_tokenizer");
    sequence.put("type", "Sequence");
    sequence.putArray("pretokenizers").add(split).add(byteLevel());
    return write(root, dir.resolve("removing.json"));
  }

  /** A tokenizer that only applies NFC: {@code decode(encode(text))} is the normalized text. */
  static HfTokenizer nfc(Path dir) throws IOException {
    ObjectNode root = bytes();
    root.putObject("normalizer").put("type", "NFC");
    root.set("pre_tokenizer", byteLevel());
    return write(root, dir.resolve("nfc.json"));
  }

  private static ObjectNode byteLevel() {
    ObjectNode byteLevel = JSON.createObjectNode();
    byteLevel.put("type", "ByteLevel");
    byteLevel.put("add_prefix_space", false);
    byteLevel.put("trim_offsets", false);
    byteLevel.put("use_regex", false);
    return byteLevel;
  }

  /** Byte-level BPE with one token per byte and no merges, and its decoder. */
  private static ObjectNode bytes() {
    ObjectNode root = JSON.createObjectNode();
    root.put("version", "1.0");
    root.putNull("truncation");
    root.putNull("padding");
    root.putArray("added_tokens");
    root.putNull("normalizer");
    root.putNull("pre_tokenizer");
    root.putNull("post_processor");
    root.set("decoder", byteLevel());
    ObjectNode model = root.putObject("model");
    model.put("type", "BPE");
    ObjectNode vocab = model.putObject("vocab");
    int extra = 0;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      vocab.put(String.valueOf((char) (printable ? b : 256 + extra++)), b);
    }
    model.putArray("merges");
    return root;
  }

  private static HfTokenizer write(ObjectNode root, Path file) throws IOException {
    Files.writeString(file, JSON.writeValueAsString(root));
    return HfTokenizer.load(file);
  }
}
