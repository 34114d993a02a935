package io.kvrouter.transport.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvrouter.common.PlainEngine;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.sglang.SglangGenerate;
import io.kvrouter.protocol.vllm.VllmChunkJson;
import io.kvrouter.protocol.vllm.VllmCompletions;
import io.kvrouter.transport.RequestIdHeaders;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.util.Optional;

/**
 * What differs between plain engines' token-in HTTP APIs: the route, the body, the headers, how a
 * streamed chunk reads, and how a cancelled request is stopped. {@link HttpRequestPlane} and {@link
 * SseResponseStream} do the rest the same way for every engine.
 */
sealed interface EngineApi {

  /** Reads one request's streamed chunks, in order. */
  interface ChunkReader {
    /**
     * The new output of the chunk whose JSON lies in {@code json} at {@code offset}, or empty for
     * one without (a usage chunk, a repeat).
     */
    Optional<EngineOutput> read(byte[] json, int offset, int length) throws IOException;
  }

  /** A request that tells the engine to stop one request at once. */
  record Abort(String path, ObjectNode body) {}

  String path();

  ObjectNode body(PreprocessedRequest request, String requestId);

  /** The request's headers besides the content type. */
  void headers(RequestOptions options, PreprocessedRequest request, String requestId);

  ChunkReader reader();

  /**
   * How a cancelled request is stopped besides closing its connection, which both engines take as
   * an abort; empty when that is enough.
   */
  Optional<Abort> abort(String requestId);

  static EngineApi of(PlainEngine engine) {
    return switch (engine) {
      case VLLM -> Vllm.INSTANCE;
      case SGLANG -> Sglang.INSTANCE;
    };
  }

  /** {@code vllm serve}: {@link VllmCompletions}; aborts on disconnect, has no abort route. */
  enum Vllm implements EngineApi {
    INSTANCE;

    @Override
    public String path() {
      return VllmCompletions.PATH;
    }

    @Override
    public ObjectNode body(PreprocessedRequest request, String requestId) {
      return VllmCompletions.requestBody(request);
    }

    @Override
    public void headers(RequestOptions options, PreprocessedRequest request, String requestId) {
      options.putHeader(
          HttpRequestPlane.REQUEST_ID, RequestIdHeaders.forEngine(requestId, request));
      request
          .dpRank()
          .ifPresent(rank -> options.putHeader(HttpRequestPlane.DP_RANK, String.valueOf(rank)));
    }

    @Override
    public ChunkReader reader() {
      return VllmChunkJson::read;
    }

    @Override
    public Optional<Abort> abort(String requestId) {
      return Optional.empty();
    }
  }

  /**
   * SGLang: {@link SglangGenerate}; the request id and rank go in the body. A disconnect aborts
   * only after about 2 s, so a cancel also posts {@code /abort_request} (as SGLang's own gateway
   * does).
   */
  enum Sglang implements EngineApi {
    INSTANCE;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String path() {
      return SglangGenerate.PATH;
    }

    @Override
    public ObjectNode body(PreprocessedRequest request, String requestId) {
      return SglangGenerate.requestBody(request, requestId);
    }

    @Override
    public void headers(RequestOptions options, PreprocessedRequest request, String requestId) {
      options.putHeader(
          HttpRequestPlane.REQUEST_ID, RequestIdHeaders.forEngine(requestId, request));
    }

    @Override
    public ChunkReader reader() {
      SglangGenerate.Reader reader = new SglangGenerate.Reader();
      return (json, offset, length) -> reader.read(JSON.readTree(json, offset, length));
    }

    @Override
    public Optional<Abort> abort(String requestId) {
      return Optional.of(new Abort(SglangGenerate.ABORT_PATH, SglangGenerate.abortBody(requestId)));
    }
  }
}
