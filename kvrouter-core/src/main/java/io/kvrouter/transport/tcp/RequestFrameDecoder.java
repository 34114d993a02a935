package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes {@link RequestFrame}s from fragments of a request-plane connection. A state machine: each
 * state reads one field and returns {@code false} while its bytes have not all arrived. A path
 * length outside 1..1024 or a frame larger than the configured maximum throws {@link
 * TcpCodecException} as soon as its length field is read, before its bytes are buffered.
 *
 * <p>Malformed headers are dropped rather than fatal, as Dynamo's worker does: they only carry
 * tracing context.
 */
final class RequestFrameDecoder extends FrameDecoder<RequestFrame> {
  private static final Logger LOG = LoggerFactory.getLogger(RequestFrameDecoder.class);
  private static final TypeReference<Map<String, Object>> HEADERS_TYPE = new TypeReference<>() {};

  private enum State {
    PATH_LENGTH,
    PATH,
    HEADERS_LENGTH,
    HEADERS,
    PAYLOAD_LENGTH,
    PAYLOAD
  }

  private State state = State.PATH_LENGTH;
  private int pathLength;
  private int headersLength;
  private int payloadLength;
  private String path;
  private Map<String, String> headers;

  RequestFrameDecoder(int maxMessageSize) {
    super(maxMessageSize);
  }

  @Override
  boolean decodeStep(Consumer<RequestFrame> out) {
    return switch (state) {
      case PATH_LENGTH -> decodePathLength();
      case PATH -> decodePath();
      case HEADERS_LENGTH -> decodeHeadersLength();
      case HEADERS -> decodeHeaders();
      case PAYLOAD_LENGTH -> decodePayloadLength();
      case PAYLOAD -> decodePayload(out);
    };
  }

  private boolean decodePathLength() {
    if (in.readable() < 2) {
      return false;
    }
    pathLength = in.readUnsignedShort();
    if (pathLength < 1 || pathLength > RequestFrame.MAX_PATH_LENGTH) {
      throw new TcpCodecException(
          "invalid endpoint path length "
              + pathLength
              + " (1.."
              + RequestFrame.MAX_PATH_LENGTH
              + ")");
    }
    state = State.PATH;
    return true;
  }

  private boolean decodePath() {
    if (in.readable() < pathLength) {
      return false;
    }
    path = strictUtf8(in.readBytes(pathLength));
    state = State.HEADERS_LENGTH;
    return true;
  }

  private boolean decodeHeadersLength() {
    if (in.readable() < 2) {
      return false;
    }
    headersLength = in.readUnsignedShort();
    checkFrameSize(0);
    state = State.HEADERS;
    return true;
  }

  private boolean decodeHeaders() {
    if (in.readable() < headersLength) {
      return false;
    }
    headers = parseHeaders(in.readBytes(headersLength));
    state = State.PAYLOAD_LENGTH;
    return true;
  }

  private boolean decodePayloadLength() {
    if (in.readable() < 4) {
      return false;
    }
    long length = in.readUnsignedInt();
    checkFrameSize(length);
    payloadLength = (int) length;
    state = State.PAYLOAD;
    return true;
  }

  private boolean decodePayload(Consumer<RequestFrame> out) {
    if (in.readable() < payloadLength) {
      return false;
    }
    RequestFrame frame = new RequestFrame(path, headers, in.readBuffer(payloadLength));
    path = null;
    headers = null;
    state = State.PATH_LENGTH;
    out.accept(frame);
    return true;
  }

  private void checkFrameSize(long payloadBytes) {
    long total = RequestFrame.PREFIX_BYTES + pathLength + headersLength + payloadBytes;
    if (total > maxMessageSize) {
      throw new TcpCodecException(
          "request frame of " + total + " bytes exceeds the limit of " + maxMessageSize + " bytes");
    }
  }

  private static String strictUtf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static Map<String, String> parseHeaders(byte[] json) {
    if (json.length == 0) {
      return Map.of();
    }
    try {
      Map<String, Object> raw = WireJson.MAPPER.readValue(json, HEADERS_TYPE);
      Map<String, String> headers = new LinkedHashMap<>();
      raw.forEach(
          (key, value) -> {
            if (value instanceof String text) {
              headers.put(key, text);
            }
          });
      return Collections.unmodifiableMap(headers);
    } catch (IOException | RuntimeException e) {
      LOG.debug("ignoring malformed request headers: {}", e.getMessage());
      return Map.of();
    }
  }
}
