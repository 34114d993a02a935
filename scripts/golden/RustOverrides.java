import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Fills the tokenization goldens' overrides with the Rust library's answers (run by
 * scripts/golden/rust-overrides, with kvrouter-core's class path: DJL's binding of Hugging Face's
 * Rust tokenizers and Jackson). For each {model: {case: {reason}}} in overrides.json it writes
 * ids, ids_with_special and decode as the Rust library gives them, with the library's version.
 *
 * <p>With --check it writes nothing and lists every model and case (of cases.json and
 * cases-unicode.json, without the long repeat case) where the golden file's ids, transformers.js's
 * answer unless overridden, are not the Rust library's; the exit status is 1 if there is one.
 */
public class RustOverrides {
  static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    System.setProperty("ai.djl.offline", "true");
    System.setProperty("OPT_OUT_TRACKING", "true");
    Path golden = Path.of(args[0]);
    Path models = Path.of(args[1]);
    boolean check = args.length > 2 && args[2].equals("--check");
    Map<String, String> texts = new HashMap<>();
    for (String file : new String[] {"cases.json", "cases-unicode.json"}) {
      for (JsonNode c : JSON.readTree(golden.resolve(file).toFile()).get("cases")) {
        if (c.has("text")) {
          texts.put(c.get("name").asText(), c.get("text").asText());
        }
      }
    }
    ObjectNode overrides = (ObjectNode) JSON.readTree(golden.resolve("overrides.json").toFile());
    String[] all = {
      "qwen3", "qwen2_5", "llama3", "llama3_1", "llama3_2", "deepseek_v3", "gemma3", "gptoss",
      "mistral_nemo"
    };
    int differing = 0;
    for (String model : all) {
      try (HuggingFaceTokenizer rust =
          HuggingFaceTokenizer.newInstance(
              models.resolve(model).resolve("tokenizer.json"),
              Map.of(
                  "addSpecialTokens", "false",
                  "truncation", "false",
                  "padding", "false",
                  "modelMaxLength", String.valueOf(Integer.MAX_VALUE - 8)))) {
        if (check) {
          JsonNode cases = JSON.readTree(golden.resolve(model + ".json").toFile()).get("cases");
          for (Map.Entry<String, String> c : texts.entrySet()) {
            JsonNode expected = cases.path(c.getKey()).path("ids");
            long[] ids = rust.encode(c.getValue(), false, false).getIds();
            if (!Arrays.equals(ids, longs(expected))) {
              differing++;
              System.out.println(model + " " + c.getKey() + ": golden " + expected
                  + ", Rust " + Arrays.toString(ids));
            }
          }
          continue;
        }
        JsonNode forModel = overrides.path(model);
        for (Iterator<String> it = forModel.fieldNames(); it.hasNext(); ) {
          String name = it.next();
          String text = texts.get(name);
          if (text == null) {
            throw new IllegalArgumentException("no case " + name);
          }
          ObjectNode entry = (ObjectNode) forModel.get(name);
          long[] ids = rust.encode(text, false, false).getIds();
          entry.set("ids", array(ids));
          entry.set("ids_with_special", array(rust.encode(text, true, false).getIds()));
          entry.put("decode", rust.decode(ids, false));
          entry.put("by", "Hugging Face tokenizers (Rust) through DJL tokenizers " + args[3]);
        }
      }
    }
    if (check) {
      System.out.println(differing + " golden id lists differ from the Rust library's");
      System.exit(differing == 0 ? 0 : 1);
    }
    String text =
        JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsString(overrides)
            .replaceAll("\\[\\s*((?:-?\\d+,\\s*)*-?\\d+)\\s*\\]", "[$1]")
            .replaceAll("(\\d),\\s+(?=-?\\d)", "$1,");
    Files.writeString(golden.resolve("overrides.json"), text + "\n", StandardCharsets.UTF_8);
  }

  static long[] longs(JsonNode array) {
    long[] out = new long[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asLong();
    }
    return out;
  }

  static ArrayNode array(long[] ids) {
    ArrayNode out = JSON.createArrayNode();
    for (long id : ids) {
      out.add(id);
    }
    return out;
  }
}
