package io.kvrouter.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.List;

/**
 * Writes a {@link PreprocessedRequest} as Dynamo's frontend does (serde_json of the Rust structs in
 * {@code lib/llm/src/protocols/common/preprocessor.rs} @000a36a7 and {@code
 * lib/llm/src/protocols/common.rs} @0ab24416; field table in docs/interop.md §10.4): fields in
 * declaration order; fields without a serde skip attribute always written, as {@code null} when
 * unset (TRT-LLM's worker reads {@code request["stop_conditions"]["max_tokens"]} unguarded); fields
 * with {@code skip_serializing_if} only when set. Fields kvrouter does not carry are written as
 * {@code null} where Dynamo always writes them and left out where Dynamo skips them when None.
 */
public final class PreprocessedRequestSerializer {

  private PreprocessedRequestSerializer() {}

  public static final class Request extends StdSerializer<PreprocessedRequest> {
    public Request() {
      super(PreprocessedRequest.class);
    }

    @Override
    public void serialize(PreprocessedRequest r, JsonGenerator g, SerializerProvider p)
        throws IOException {
      g.writeStartObject();
      g.writeStringField("model", r.model());
      g.writeFieldName("token_ids");
      g.writeStartArray();
      for (int id : r.tokenIds()) {
        g.writeNumber(id);
      }
      g.writeEndArray();
      // generate_request, prompt_embeds, multi_modal_data, mm_routing_info: skipped when None
      g.writeFieldName("stop_conditions");
      p.defaultSerializeValue(r.stopConditions(), g);
      g.writeFieldName("sampling_options");
      p.defaultSerializeValue(r.samplingOptions(), g);
      g.writeFieldName("output_options");
      p.defaultSerializeValue(r.outputOptions(), g);
      intList(g, "eos_token_ids", r.eosTokenIds());
      g.writeNullField("mdc_sum");
      g.writeFieldName("annotations");
      g.writeStartArray();
      for (String a : r.annotations()) {
        g.writeString(a);
      }
      g.writeEndArray();
      if (r.routing() != null) {
        g.writeFieldName("routing");
        p.defaultSerializeValue(r.routing(), g);
      }
      g.writeNullField("router_config_override");
      // prefill_result ... request_timestamp_ms, _HEALTH_CHECK: skipped when None or false
      g.writeEndObject();
    }
  }

  public static final class Stop extends StdSerializer<PreprocessedRequest.StopConditions> {
    public Stop() {
      super(PreprocessedRequest.StopConditions.class);
    }

    @Override
    public void serialize(
        PreprocessedRequest.StopConditions s, JsonGenerator g, SerializerProvider p)
        throws IOException {
      g.writeStartObject();
      number(g, "max_tokens", s.maxTokens());
      stringList(g, "stop", s.stop());
      intList(g, "stop_token_ids", s.stopTokenIds());
      g.writeNullField("stop_token_ids_hidden");
      number(g, "min_tokens", s.minTokens());
      bool(g, "ignore_eos", s.ignoreEos());
      g.writeNullField("max_thinking_tokens");
      g.writeEndObject();
    }
  }

  public static final class Sampling extends StdSerializer<PreprocessedRequest.SamplingOptions> {
    public Sampling() {
      super(PreprocessedRequest.SamplingOptions.class);
    }

    @Override
    public void serialize(
        PreprocessedRequest.SamplingOptions s, JsonGenerator g, SerializerProvider p)
        throws IOException {
      g.writeStartObject();
      number(g, "n", s.n());
      g.writeNullField("best_of");
      number(g, "presence_penalty", s.presencePenalty());
      number(g, "frequency_penalty", s.frequencyPenalty());
      number(g, "repetition_penalty", s.repetitionPenalty());
      number(g, "temperature", s.temperature());
      number(g, "top_p", s.topP());
      number(g, "top_k", s.topK());
      number(g, "min_p", s.minP());
      g.writeNullField("use_beam_search");
      g.writeNullField("length_penalty");
      number(g, "seed", s.seed());
      g.writeNullField("include_stop_str_in_output");
      g.writeNullField("guided_decoding");
      // detokenize, allowed_token_ids, bad_words_token_ids: skipped when None
      g.writeEndObject();
    }
  }

  public static final class Output extends StdSerializer<PreprocessedRequest.OutputOptions> {
    public Output() {
      super(PreprocessedRequest.OutputOptions.class);
    }

    @Override
    public void serialize(
        PreprocessedRequest.OutputOptions o, JsonGenerator g, SerializerProvider p)
        throws IOException {
      g.writeStartObject();
      number(g, "logprobs", o.logprobs());
      g.writeNullField("prompt_logprobs");
      bool(g, "skip_special_tokens", o.skipSpecialTokens());
      g.writeNullField("formatted_prompt");
      g.writeNullField("return_tokens_as_token_ids");
      g.writeEndObject();
    }
  }

  private static void number(JsonGenerator g, String name, Number value) throws IOException {
    g.writeFieldName(name);
    if (value == null) {
      g.writeNull();
    } else if (value instanceof Integer i) {
      g.writeNumber(i);
    } else if (value instanceof Long l) {
      g.writeNumber(l);
    } else {
      g.writeNumber(value.doubleValue());
    }
  }

  private static void bool(JsonGenerator g, String name, Boolean value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeBooleanField(name, value);
    }
  }

  private static void intList(JsonGenerator g, String name, List<Integer> values)
      throws IOException {
    g.writeFieldName(name);
    if (values == null) {
      g.writeNull();
      return;
    }
    g.writeStartArray();
    for (Integer v : values) {
      g.writeNumber(v);
    }
    g.writeEndArray();
  }

  private static void stringList(JsonGenerator g, String name, List<String> values)
      throws IOException {
    g.writeFieldName(name);
    if (values == null) {
      g.writeNull();
      return;
    }
    g.writeStartArray();
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }
}
