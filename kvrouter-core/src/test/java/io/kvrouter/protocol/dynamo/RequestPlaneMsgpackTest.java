package io.kvrouter.protocol.dynamo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.protocol.dynamo.RequestPlaneMsgpack.Floats;
import java.math.BigInteger;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The JSON-to-msgpack translation of the request plane, value rule by value rule. */
class RequestPlaneMsgpackTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();

  private static String write(String json, Floats floats) throws Exception {
    return HEX.formatHex(RequestPlaneMsgpack.write(JSON.readTree(json), floats));
  }

  private static JsonNode read(String hex) {
    return RequestPlaneMsgpack.read(HEX.parseHex(hex));
  }

  @Test
  void integersTakeRmpsSmallestForms() throws Exception {
    assertThat(write("[0,127,128,255,256,65535,65536,4294967295,4294967296]", Floats.F64))
        .isEqualTo(
            "99"
                + "00"
                + "7f"
                + "cc80"
                + "ccff"
                + "cd0100"
                + "cdffff"
                + "ce00010000"
                + "ceffffffff"
                + "cf0000000100000000");
    assertThat(write("[-1,-32,-33,-128,-129,-32768,-32769,-2147483649]", Floats.F64))
        .isEqualTo(
            "98"
                + "ff"
                + "e0"
                + "d0df"
                + "d080"
                + "d1ff7f"
                + "d18000"
                + "d2ffff7fff"
                + "d3ffffffff7fffffff");
    assertThat(write("[18446744073709551615]", Floats.F64)).isEqualTo("91cfffffffffffffffff");
  }

  @Test
  void floatsAreF32OrF64AsTheRustTypeSays() throws Exception {
    assertThat(write("[0.5]", Floats.F32)).isEqualTo("91ca3f000000");
    assertThat(write("[0.5]", Floats.F64)).isEqualTo("91cb3fe0000000000000");
  }

  @Test
  void mapsKeepTheirOrder_nullsAreNil_stringsTakeStr8From32Bytes() throws Exception {
    assertThat(write("{\"b\":null,\"a\":true,\"c\":false}", Floats.F64))
        .isEqualTo("83" + "a162c0" + "a161c3" + "a163c2");
    String thirtyTwo = "x".repeat(32);
    assertThat(write("\"" + thirtyTwo + "\"", Floats.F64)).isEqualTo("d920" + "78".repeat(32));
  }

  @Test
  void readsEveryValueBack() {
    JsonNode value = read("84a161c0a16292ff0ca163ca3f000000a164cfffffffffffffffff");
    assertThat(value.get("a").isNull()).isTrue();
    assertThat(value.get("b").get(0).asInt()).isEqualTo(-1);
    assertThat(value.get("b").get(1).asInt()).isEqualTo(12);
    assertThat(value.get("c").doubleValue()).isEqualTo(0.5);
    assertThat(value.get("d").bigIntegerValue()).isEqualTo(new BigInteger("18446744073709551615"));
  }

  @Test
  void refusesWhatSerdeCouldNotHaveWritten() {
    assertThatThrownBy(() -> read("82a161"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a map of 2 entries cannot fit in the 2 bytes left");
    assertThatThrownBy(() -> read("c0c0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bytes after the value (at byte 1)");
    assertThatThrownBy(() -> read("8101c0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a map key that is not a string (at byte 1)");
    assertThatThrownBy(() -> read("91".repeat(RequestPlaneMsgpack.MAX_DEPTH + 1) + "c0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nested deeper than 128");
    assertThatThrownBy(() -> read("c1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0xc1");
  }

  @Test
  void refusesIntegersBeyondSixtyFourBits() {
    assertThatThrownBy(() -> write("[18446744073709551616]", Floats.F64))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not fit in 64 bits");
  }
}
