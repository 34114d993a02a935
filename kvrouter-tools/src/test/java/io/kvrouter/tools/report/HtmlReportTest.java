package io.kvrouter.tools.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * {@link HtmlReport}, read back with the JDK's XML parser: the report is XHTML-compatible, so its
 * tables and charts can be counted element by element.
 */
class HtmlReportTest {
  private static final XPath XPATH = XPathFactory.newInstance().newXPath();

  private static Document parse(String html) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    return factory.newDocumentBuilder().parse(new InputSource(new StringReader(html)));
  }

  private static Document parse(RunReport report) throws Exception {
    return parse(HtmlReport.render(report));
  }

  private static List<Element> select(Document doc, String xpath) throws Exception {
    NodeList nodes = (NodeList) XPATH.evaluate(xpath, doc, XPathConstants.NODESET);
    List<Element> elements = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      elements.add((Element) nodes.item(i));
    }
    return elements;
  }

  private static List<String> lineNames(Document doc, String xpath) throws Exception {
    return select(doc, xpath).stream().map(Element::getTextContent).toList();
  }

  private static int points(Element polyline) {
    return polyline.getAttribute("points").trim().split(" ").length;
  }

  @Test
  void document_parsesAsXml_withTitleSettingsResultsAndThreeCharts() throws Exception {
    Document doc = parse(SampleReports.threePolicies());

    assertThat(select(doc, "/html/head/title").get(0).getTextContent())
        .isEqualTo("simulate mooncake_trace.jsonl");
    assertThat(lineNames(doc, "//table[@class='settings']//th"))
        .containsExactly("trace", "workers", "seed");
    assertThat(lineNames(doc, "//table[@class='settings']//td"))
        .containsExactly("mooncake_trace.jsonl", "3", "42");
    assertThat(select(doc, "//section").stream().map(s -> s.getAttribute("id")))
        .containsExactly("results", "ttft-cdf", "hit-rate", "worker-load");
  }

  @Test
  void resultsTable_hasARowPerPolicy_withItsNumbers() throws Exception {
    Document doc = parse(SampleReports.threePolicies());

    assertThat(lineNames(doc, "//table[@class='results']/tbody/tr/th"))
        .containsExactly("kv", "round-robin", "bench");
    assertThat(lineNames(doc, "//table[@class='results']/tbody/tr[1]/td"))
        .containsExactly(
            "50", "60.0%", "12.5", "10.0", "20.0", "40.0", "8.00", "15.0", "900", "3,000",
            "1,234.5", "7");
    assertThat(lineNames(doc, "//table[@class='results']/tbody/tr[3]/td[2]"))
        .containsExactly("\u2014");
  }

  @Test
  void resultsTable_highlightsTheBestOfEachColumn_onlyWhereCellsDiffer() throws Exception {
    Document doc = parse(SampleReports.threePolicies());

    // kv has the best hit rate and TTFT; the other columns are the same for every policy
    assertThat(select(doc, "//table[@class='results']/tbody/tr[1]/td[@class='best']")).hasSize(5);
    assertThat(select(doc, "//table[@class='results']/tbody/tr[position() > 1]/td[@class='best']"))
        .isEmpty();
    assertThat(lineNames(doc, "//table[@class='results']/tbody/tr[1]/td[@class='best']"))
        .containsExactly("60.0%", "12.5", "10.0", "20.0", "40.0");
  }

  @Test
  void ttftChart_hasALinePerPolicy() throws Exception {
    Document doc = parse(SampleReports.threePolicies());

    assertThat(select(doc, "//section[@id='ttft-cdf']//svg")).hasSize(1);
    assertThat(lineNames(doc, "//section[@id='ttft-cdf']//polyline/title"))
        .containsExactly("kv", "round-robin", "bench");
    assertThat(lineNames(doc, "//section[@id='ttft-cdf']//ul[@class='legend']/li"))
        .containsExactly("kv", "round-robin", "bench");
    List<String> colours =
        select(doc, "//section[@id='ttft-cdf']//polyline").stream()
            .map(line -> line.getAttribute("stroke"))
            .toList();
    assertThat(colours).doesNotHaveDuplicates().allMatch(c -> c.matches("#[0-9a-f]{6}"));
  }

  @Test
  void ttftChart_drawsAtMost300PointsPerPolicy_andEverySampleOfASmallRun() throws Exception {
    double[] many = new double[10_000];
    for (int i = 0; i < many.length; i++) {
      many[i] = 1 + i;
    }
    RunReport report =
        new RunReport(
            "t",
            Map.of(),
            List.of(
                SampleReports.run("big", 0.5, Latency.of(many), many, null),
                SampleReports.run("small", 0.5, Latency.EMPTY, new double[] {3, 1, 2}, null)));

    List<Element> lines = select(parse(report), "//section[@id='ttft-cdf']//polyline");

    assertThat(lines).hasSize(2);
    assertThat(points(lines.get(0))).isEqualTo(TtftCdfFigure.MAX_POINTS);
    assertThat(points(lines.get(1))).isEqualTo(3);
    assertThat(HtmlReport.render(report).length()).isLessThan(40_000);
  }

  @Test
  void ttftChart_leavesOutPoliciesWithoutSamples_andIsLeftOutWhenNoneHasAny() throws Exception {
    PolicyRun empty = SampleReports.run("empty", 0.5, Latency.EMPTY, new double[0], null);
    PolicyRun some = SampleReports.run("some", 0.5, Latency.EMPTY, new double[] {4, 5}, null);

    Document both = parse(new RunReport("t", Map.of(), List.of(empty, some)));
    Document none = parse(new RunReport("t", Map.of(), List.of(empty)));

    assertThat(lineNames(both, "//section[@id='ttft-cdf']//polyline/title"))
        .containsExactly("some");
    assertThat(select(none, "//section").stream().map(s -> s.getAttribute("id")))
        .containsExactly("results");
  }

  @Test
  void hitRateChart_skipsPoliciesWithoutAHitRate_andIntervalsWithout() throws Exception {
    Document doc = parse(SampleReports.threePolicies());

    List<Element> lines = select(doc, "//section[@id='hit-rate']//polyline");
    assertThat(lineNames(doc, "//section[@id='hit-rate']//polyline/title"))
        .containsExactly("kv", "round-robin");
    assertThat(points(lines.get(0))).isEqualTo(3);
    assertThat(points(lines.get(1))).isEqualTo(2); // the NaN interval is left out
  }

  @Test
  void workerLoad_isOneChartPerPolicyWithATimeline_withALinePerWorker() throws Exception {
    Document doc = parse(SampleReports.threePolicies());

    List<Element> figures = select(doc, "//section[@id='worker-load']//figure");
    assertThat(lineNames(doc, "//section[@id='worker-load']//figcaption"))
        .containsExactly("kv", "round-robin");
    for (int i = 1; i <= figures.size(); i++) {
      String chart = "//section[@id='worker-load']//figure[" + i + "]";
      assertThat(select(doc, chart + "//svg")).hasSize(1);
      assertThat(lineNames(doc, chart + "//polyline/title"))
          .containsExactlyElementsOf(SampleReports.WORKERS);
    }
    assertThat(lineNames(doc, "//section[@id='worker-load']//ul[@class='legend']/li"))
        .containsExactlyElementsOf(SampleReports.WORKERS);
  }

  @Test
  void runWithoutTimelines_hasNoTimeCharts() throws Exception {
    RunReport report =
        new RunReport(
            "bench",
            Map.of(),
            List.of(SampleReports.run("kv", null, Latency.EMPTY, new double[] {5, 6}, null)));

    Document doc = parse(report);

    assertThat(select(doc, "//section").stream().map(s -> s.getAttribute("id")))
        .containsExactly("results", "ttft-cdf");
    assertThat(select(doc, "//svg")).hasSize(1);
  }

  @Test
  void text_isEscaped() throws Exception {
    String title = "<script>alert('x')</script> & more";
    RunReport report =
        new RunReport(
            title,
            Map.of("<b>key</b>", "\"value\" & <i>"),
            List.of(SampleReports.run("a<b>&c", 0.5, Latency.EMPTY, new double[] {1}, null)));

    String html = HtmlReport.render(report);
    Document doc = parse(html);

    assertThat(html)
        .doesNotContain("<script", "<b>", "<i>", "a<b>")
        .contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more");
    assertThat(select(doc, "//h1").get(0).getTextContent()).isEqualTo(title);
    assertThat(lineNames(doc, "//table[@class='settings']//td")).containsExactly("\"value\" & <i>");
    assertThat(lineNames(doc, "//polyline/title")).containsExactly("a<b>&c");
  }

  @Test
  void document_isSelfContained() {
    String html = HtmlReport.render(SampleReports.threePolicies());

    assertThat(html)
        .doesNotContain("http://", "https://", "<script", "<link", "src=", "url(", "@import");
  }

  @Test
  void sameReport_rendersTheSameBytes() {
    assertThat(HtmlReport.render(SampleReports.threePolicies()))
        .isEqualTo(HtmlReport.render(SampleReports.threePolicies()));
  }

  @Test
  void write_putsTheDocumentInTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("report.html");
    RunReport report = SampleReports.threePolicies();

    HtmlReport.write(report, file);

    assertThat(Files.readString(file)).isEqualTo(HtmlReport.render(report));
  }
}
