package io.kvrouter.protocol.dynamo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvrouter.protocol.msgpack.MsgpackFormatException;
import io.kvrouter.protocol.msgpack.MsgpackReader;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePacker;

/**
 * The request plane's msgpack payloads ({@code payload_codec: "msgpack"}, docs/interop.md §10.9):
 * what Dynamo's {@code RequestPlanePayloadCodec::Msgpack} writes with {@code
 * rmp_serde::to_vec_named} and reads with {@code rmp_serde::from_slice}
 * (lib/runtime/src/pipeline/network.rs, index id 68701265847, commit not shown by the index),
 * translated from and to the JSON form the rest of the plane works with, so that one field table
 * ({@code PreprocessedRequestSerializer}, §10.4) gives both encodings the same fields, order and
 * nulls.
 *
 * <p>rmp-serde's named encoding, value by value:
 *
 * <pre>
 * struct / map      map (fixmap 8x, map16 de, map32 df), string keys, fields in declaration order,
 *                   skipped fields not counted
 * Vec / tuple       array (fixarray 9x, array16 dc, array32 dd)
 * None / ()         nil c0                 Some(v)  v itself
 * bool              c2 / c3
 * u8..u64           smallest unsigned form: fixint 00-7f, cc, cd, ce, cf
 * i8..i64           negative: fixint e0-ff, d0, d1, d2, d3; zero and positive as unsigned
 * f32               ca + 4 bytes BE        f64      cb + 8 bytes BE
 * String            fixstr ax, str8 d9, str16 da, str32 db (UTF-8)
 * unit enum variant its name as a string; newtype variant {name: value}
 * </pre>
 *
 * <p>JSON does not say whether a number was an {@code f32} or an {@code f64}, so the writer is told
 * ({@link Floats}): every float of a {@code PreprocessedRequest} is an {@code f32} in Rust
 * (penalties, temperature, top_p, min_p), every float of a response item an {@code f64} (log
 * probabilities).
 */
public final class RequestPlaneMsgpack {

  /** The most nested maps and arrays read: serde_json's own recursion limit. */
  static final int MAX_DEPTH = 128;

  /** Which Rust float type the numbers of a value are. */
  public enum Floats {
    F32,
    F64
  }

  private RequestPlaneMsgpack() {}

  /**
   * {@code value} in rmp-serde's named form. Integers are written in their smallest form, as rmp
   * does for every integer type; non-integral numbers as {@code floats}.
   *
   * @throws IllegalArgumentException for a value msgpack cannot carry as Dynamo's serde types do (a
   *     binary node or an integer beyond 64 bits)
   */
  public static byte[] write(JsonNode value, Floats floats) {
    return MsgpackOut.write(out -> write(out, value, floats));
  }

  private static void write(MessagePacker out, JsonNode node, Floats floats) throws IOException {
    switch (node.getNodeType()) {
      case NULL, MISSING -> out.packNil();
      case BOOLEAN -> out.packBoolean(node.booleanValue());
      case STRING -> MsgpackOut.string(out, node.textValue());
      case NUMBER -> number(out, node, floats);
      case ARRAY -> {
        out.packArrayHeader(node.size());
        for (JsonNode element : node) {
          write(out, element, floats);
        }
      }
      case OBJECT -> {
        out.packMapHeader(node.size());
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
          Map.Entry<String, JsonNode> field = fields.next();
          MsgpackOut.string(out, field.getKey());
          write(out, field.getValue(), floats);
        }
      }
      default ->
          throw new IllegalArgumentException(
              "no msgpack form for a " + node.getNodeType() + " node");
    }
  }

  private static void number(MessagePacker out, JsonNode node, Floats floats) throws IOException {
    if (node.isIntegralNumber()) {
      BigInteger big = node.bigIntegerValue();
      if (big.signum() >= 0 && big.bitLength() <= 64) {
        MsgpackOut.u64(out, big.longValue()); // a u64 of 2^63 or more keeps its bits
      } else if (big.bitLength() <= 63) {
        out.packLong(big.longValue()); // negative: rmp's write_sint picks the same forms
      } else {
        throw new IllegalArgumentException(big + " does not fit in 64 bits");
      }
    } else if (floats == Floats.F32) {
      out.packFloat(node.floatValue());
    } else {
      out.packDouble(node.doubleValue());
    }
  }

  /**
   * The value {@code bytes} hold, all of them, as a JSON tree: maps (whose keys must be strings, as
   * serde's named structs write them) as objects, floats as doubles, a uint64 of 2<sup>63</sup> or
   * more as a big integer, bin as binary.
   *
   * @throws IllegalArgumentException if the bytes are not one msgpack value, or a key is not a
   *     string, or the value nests deeper than {@value #MAX_DEPTH}; the message names the byte
   */
  public static JsonNode read(byte[] bytes) {
    MsgpackReader in = new MsgpackReader(bytes);
    try {
      JsonNode value = read(in, 0);
      if (in.remaining() != 0) {
        throw malformed("bytes after the value", in.position());
      }
      return value;
    } catch (MsgpackFormatException e) {
      throw malformed(e.problem(), e.offset());
    }
  }

  private static IllegalArgumentException malformed(String problem, int at) {
    return new IllegalArgumentException(problem + " (at byte " + at + ")");
  }

  private static JsonNode read(MsgpackReader in, int depth) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    MessageFormat format = in.format();
    switch (format.getValueType()) {
      case NIL -> {
        in.nil();
        return nodes.nullNode();
      }
      case BOOLEAN -> {
        return nodes.booleanNode(in.bool());
      }
      case INTEGER -> {
        long bits = in.integer();
        if (format == MessageFormat.UINT64 && bits < 0) {
          return nodes.numberNode(new BigInteger(Long.toUnsignedString(bits)));
        }
        return nodes.numberNode(bits);
      }
      case FLOAT -> {
        return nodes.numberNode(in.floating());
      }
      case STRING -> {
        return nodes.textNode(in.string());
      }
      case BINARY -> {
        return nodes.binaryNode(in.binary());
      }
      case ARRAY -> {
        checkDepth(in, depth);
        int size = in.arrayHeader();
        ArrayNode array = nodes.arrayNode();
        for (int i = 0; i < size; i++) {
          array.add(read(in, depth + 1));
        }
        return array;
      }
      case MAP -> {
        checkDepth(in, depth);
        int size = in.mapHeader();
        ObjectNode object = nodes.objectNode();
        for (int i = 0; i < size; i++) {
          int at = in.position();
          String key = in.key();
          if (key == null) {
            throw malformed("a map key that is not a string", at);
          }
          object.set(key, read(in, depth + 1));
        }
        return object;
      }
      default -> throw malformed("unsupported msgpack value " + format, in.position());
    }
  }

  private static void checkDepth(MsgpackReader in, int depth) {
    if (depth >= MAX_DEPTH) {
      throw malformed("values nested deeper than " + MAX_DEPTH, in.position());
    }
  }
}
