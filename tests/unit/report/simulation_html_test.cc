#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "report/simulation_report.h"
#include "simulation_testing.h"

namespace attune::report {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1)) ++n;
  return n;
}

TEST(SimulationHtmlTest, IsOneSelfContainedPage) {
  const std::string h = renderSimulationHtml(testing::sampleReport());
  EXPECT_TRUE(h.starts_with("<!DOCTYPE html>\n")) << h.substr(0, 100);
  EXPECT_TRUE(h.ends_with("</html>\n"));
  EXPECT_TRUE(has(h, "<style>"));
  // Nothing is fetched: no scripts, stylesheets, images, fonts or remote references.
  const std::regex external(R"((src|href)\s*=\s*["']?\s*(https?:)?//)", std::regex::icase);
  EXPECT_FALSE(std::regex_search(h, external));
  for (const char* part : {"http://", "https://", "<script", "<link", "<img", "url(", "@import"}) {
    EXPECT_FALSE(has(h, part)) << part;
  }
}

TEST(SimulationHtmlTest, HeaderAndComparison) {
  const std::string h = renderSimulationHtml(testing::sampleReport());
  EXPECT_TRUE(has(h, "<h1>Attune simulation: demo</h1>"));
  EXPECT_TRUE(has(h, "seed 42"));
  EXPECT_TRUE(has(h, ">2024-05-01T00:00:00Z</time>"));
  EXPECT_TRUE(has(h, "duration 2h"));
  EXPECT_TRUE(has(h, R"(<th scope="col">attune</th><th scope="col">krr</th>)"));
  EXPECT_TRUE(has(h, R"(<tr><th scope="row">CPU savings</th><td>50.0%</td><td>20.0%</td></tr>)"));
  EXPECT_TRUE(has(
      h, R"(<tr><th scope="row" class="sub">reverted: throttle</th><td>0</td><td>3</td></tr>)"));
}

TEST(SimulationHtmlTest, OneChartPerResourceWorkloadAndRun) {
  SimulationReport r = testing::sampleReport();
  r.runs[0].workloads.push_back(testing::workload("api"));
  const std::string h = renderSimulationHtml(r);
  EXPECT_EQ(occurrences(h, "<svg"), 6u);  // (2 workloads + 1 workload) × (CPU + memory)
  EXPECT_EQ(occurrences(h, "</svg>"), 6u);
  EXPECT_EQ(occurrences(h, R"(<text class="title" x="70.0" y="16">CPU (cores)</text>)"), 3u);
  EXPECT_EQ(occurrences(h, R"(<text class="title" x="70.0" y="16">Memory (MiB)</text>)"), 3u);
  // Usage line, request step line; the limit (set for CPU only) dashed.
  EXPECT_EQ(occurrences(h, R"(<polyline class="usage")"), 6u);
  EXPECT_EQ(occurrences(h, R"(<path class="request")"), 6u);
  EXPECT_EQ(occurrences(h, R"(<path class="limit")"), 3u);
  EXPECT_EQ(occurrences(h, "stroke-dasharray"), 3u);
  // Savings per workload.
  EXPECT_EQ(occurrences(h, "CPU savings <b>50.0%</b> · memory savings <b>12.5%</b>"), 3u);
}

TEST(SimulationHtmlTest, ChartsHaveTimeAndUnitAxes) {
  const std::string h = renderSimulationHtml(testing::sampleReport());
  // Two hours: a tick every 15 minutes, labelled in UTC.
  for (const char* label : {">00:00<", ">00:15<", ">01:45<", ">02:00<", ">time (UTC)<"}) {
    EXPECT_TRUE(has(h, label)) << label;
  }
  EXPECT_FALSE(has(h, ">00:05<"));
  // CPU up to 1 core (the limit) in steps of 0.5; memory up to 512 MiB in steps of 200.
  EXPECT_TRUE(has(h, R"(text-anchor="end">0.5</text>)"));
  EXPECT_TRUE(has(h, R"(text-anchor="end">600</text>)"));
  // The request step: 0.5 core, then 0.25 from the middle of the series.
  const std::regex step(R"(<path class="request" d="M70\.0,([0-9.]+)H([0-9.]+)V([0-9.]+)H)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(h, m, step));
  EXPECT_LT(std::stod(m[1]), std::stod(m[3]));  // the later request is lower (larger y)
}

TEST(SimulationHtmlTest, EscapesText) {
  SimulationReport r = testing::sampleReport();
  r.scenario = "x<y";
  r.runs[0].workloads[0].name = R"(a<&>"b)";
  r.runs[0].workloads[0].events[0].detail = "<b>bold</b>";
  const std::string h = renderSimulationHtml(r);
  EXPECT_TRUE(has(h, "shop/Deployment/a&lt;&amp;&gt;&quot;b"));
  EXPECT_FALSE(has(h, R"(a<&>"b)"));
  EXPECT_TRUE(has(h, "<title>Attune simulation: x&lt;y</title>"));
  EXPECT_TRUE(has(h, "&lt;b&gt;bold&lt;/b&gt;"));
  EXPECT_FALSE(has(h, "<b>bold</b>"));
}

TEST(SimulationHtmlTest, MarksEveryEventOnEachChartAndListsIt) {
  const std::string h = renderSimulationHtml(testing::sampleReport());
  // 3 events × 2 charts × 2 runs.
  EXPECT_EQ(occurrences(h, R"(<g class="event">)"), 12u);
  // Routine events (Resized) are a rug of ticks with one tooltip per kind; safety events are
  // markers of their own.
  EXPECT_EQ(occurrences(h, "<title>1 Resized event (listed below)</title>"), 4u);
  EXPECT_EQ(occurrences(h, "<title>2024-05-01T01:30:00Z OOMKilled web-1/app: oomkill</title>"), 4u);
  // Colour per kind, on the marker and in the list.
  EXPECT_TRUE(has(h, R"(stroke="#d62728" stroke-opacity)"));
  EXPECT_TRUE(has(h, R"(stroke="#1b9e77" stroke-width="1.5")"));
  EXPECT_EQ(occurrences(h, "<li>"), 6u);
  EXPECT_TRUE(has(h, R"(<time datetime="2024-05-01T01:31:00Z">2024-05-01T01:31:00Z</time> )"
                     R"(<b>Reverted</b> web-1/app: oomkill</li>)"));
  // The tick sits at the event's time: 01:00 is half of the two-hour axis (70 … 944).
  EXPECT_TRUE(has(h, R"(<path d="M507,216.0v-6" stroke="#1b9e77")"));
}

TEST(SimulationHtmlTest, MissingSeriesAndEventsAreSaid) {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  r.runs[0].workloads[0].memory.clear();
  r.runs[0].workloads[0].events.clear();
  const std::string h = renderSimulationHtml(r);
  EXPECT_EQ(occurrences(h, "<svg"), 1u);
  EXPECT_TRUE(has(h, "No memory samples."));
  EXPECT_TRUE(has(h, "No safety events."));
}

TEST(SimulationHtmlTest, LongSeriesStayBoundedAndKeepTheirSpike) {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  WorkloadTimeline& w = r.runs[0].workloads[0];
  w.cpu = testing::cpuSeries(20000);  // 5-minute samples, about 69 days
  w.cpu[12345].usage = 8;             // one sample far above everything else
  const std::string h = renderSimulationHtml(r);
  const auto begin = h.find(R"(<polyline class="usage" points=")");
  ASSERT_NE(begin, std::string::npos);
  const std::string points = h.substr(begin, h.find('"', begin + 33) - begin);
  EXPECT_LE(occurrences(points, ","), 600u);
  // The y axis reaches the spike and the line touches the top of the plot (y = 28).
  EXPECT_TRUE(has(h, R"(text-anchor="end">8</text>)"));
  EXPECT_TRUE(has(points, ",28.0")) << points.substr(0, 200);
  EXPECT_EQ(renderSimulationHtml(r), h);
}

// A month of hourly resizes on one workload: routine events are listed up to a cap and counted
// beyond it, safety events are always listed, and events at one pixel share one marker.
TEST(SimulationHtmlTest, ManyRoutineEventsStayBounded) {
  SimulationReport r = testing::sampleReport();
  WorkloadTimeline& w = r.runs.front().workloads.front();
  w.events.clear();
  for (int i = 0; i < 500; ++i) {
    w.events.push_back(
        {.time = testing::at(0), .kind = "Resized", .pod = "p", .container = "c", .detail = "cpu"});
  }
  w.events.push_back({.time = testing::at(1),
                      .kind = "Reverted",
                      .pod = "p",
                      .container = "c",
                      .detail = "oomkill"});
  const std::string h = renderSimulationHtml(r);
  EXPECT_TRUE(has(h, "… and 450 more Resized events (the first 50 are listed).")) << h.size();
  EXPECT_TRUE(has(h, "<b>Reverted</b>"));
  EXPECT_TRUE(has(h, "500 Resized events (listed below)"));
  EXPECT_LT(occurrences(h, "<b>Resized</b>"), 60u);
}

}  // namespace
}  // namespace attune::report
