package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RouterMetricsTest {
  private static final String KV_ROUTER =
      """
      # HELP kvrouter_router_kv_hit_rate Prompt tokens the chosen worker already caches
      # TYPE kvrouter_router_kv_hit_rate histogram
      kvrouter_router_kv_hit_rate_bucket{le="0.5"} 3
      kvrouter_router_kv_hit_rate_count 4
      kvrouter_router_kv_hit_rate_sum 1.75
      # TYPE kvrouter_routing_decisions_total counter
      kvrouter_routing_decisions_total{outcome="busy",router_mode="kv"} 0.0
      kvrouter_routing_decisions_total{outcome="routed",router_mode="kv"} 4.0
      """;

  @Test
  void hitCounts_readSumAndCountOfTheSummary() {
    assertThat(RouterMetrics.hitCounts(KV_ROUTER)).isEqualTo(new HitCounts(1.75, 4));
  }

  @Test
  void aRouterWithoutTheSummary_readsZero() {
    String roundRobin =
        "kvrouter_routing_decisions_total{outcome=\"routed\",router_mode=\"round-robin\"} 9.0\n";
    assertThat(RouterMetrics.hitCounts(roundRobin)).isEqualTo(HitCounts.ZERO);
    assertThat(RouterMetrics.routerMode(roundRobin)).hasValue("round-robin");
  }

  @Test
  void routerMode_comesFromTheDecisionCounter() {
    assertThat(RouterMetrics.routerMode(KV_ROUTER)).hasValue("kv");
    assertThat(RouterMetrics.routerMode("dynamo_frontend_requests_total 1\n")).isEmpty();
  }

  @Test
  void sum_addsLabelledSamples_andIgnoresTimestampsAndLongerNames() {
    String text =
        """
        m{a="1"} 2.5 1700000000000
        m{a="}"} 1
        m 0.5
        m_total 100
        """;
    assertThat(RouterMetrics.sum(text, "m")).isEqualTo(4.0);
  }
}
