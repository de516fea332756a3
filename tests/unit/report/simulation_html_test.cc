#include <gtest/gtest.h>

#include <algorithm>
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

// "none" (the run without an operator: 10 node-hours, one eviction, PSI 10 core-s) and
// simulation_testing.h's "attune" run (6.5 node-hours, one OOM kill, PSI 12.5 core-s).
SimulationReport baselineReport() {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  SimulationRun none = testing::run("none");
  none.mode = "none";
  none.cpu.requestCoreHoursAfter = none.cpu.requestCoreHoursBefore;
  none.cpu.psiWaitingCoreSeconds = 10;
  none.risk.cpuAboveRequestPct = 10;
  none.memory.requestGibHoursAfter = none.memory.requestGibHoursBefore;
  none.memory.oomKills = 0;
  none.resizes = {};
  none.restarts = 0;
  none.evictions = 1;
  none.nodes.nodeHours = 10;
  none.nodes.cost = 2.5;
  r.runs.insert(r.runs.begin(), none);
  r.runs[1].risk.cpuAboveRequestPct = 12.5;
  return r;
}

TEST(SimulationHtmlTest, TheHeadlineComesFirst) {
  const std::string h = renderSimulationHtml(baselineReport());
  const auto headline = h.find(R"(<section class="headline">)");
  ASSERT_NE(headline, std::string::npos);
  EXPECT_LT(headline, h.find("<h2>Comparison</h2>"));
  EXPECT_TRUE(has(h,
                  "<p class=\"lead\"><b>attune</b> against <b>none</b> (the same cluster "
                  "without an operator): <b>3.50 node-hours</b> saved (35.0%), node cost "
                  "<b>0.75</b> saved (30.0%); requests: CPU <b>1.50 core-h</b> (50.0%), "
                  "memory <b>0.25 GiB-h</b> (12.5%) less.</p>"));
  // The risk figures side by side; worse than without the operator in red, better in green.
  EXPECT_TRUE(has(h, R"(<tr><th scope="row">samples CPU &gt; request</th><td>10.0%</td>)"
                     R"(<td class="worse">12.5%</td></tr>)"));
  EXPECT_TRUE(has(h, R"(<th scope="col">risk</th><th scope="col">none</th>)"
                     R"(<th scope="col">attune</th>)"));
  EXPECT_TRUE(
      has(h, R"(<tr><th scope="row">OOM kills</th><td>0</td><td class="worse">1</td></tr>)"));
  EXPECT_TRUE(
      has(h, R"(<tr><th scope="row">evictions</th><td>1</td><td class="better">0</td></tr>)"));
  EXPECT_TRUE(has(h, R"(<tr><th scope="row">CPU throttled</th><td>1.2%</td><td>1.2%</td></tr>)"));
  // A difference that does not show in the printed figures is not coloured.
  SimulationReport close = baselineReport();
  close.runs[1].risk.memoryAtLimitPct = 0.01;
  EXPECT_TRUE(has(renderSimulationHtml(close),
                  R"(<tr><th scope="row">samples memory at limit</th><td>0.0%</td><td>0.0%</td>)"));
  // Without the baseline the page says how to get one.
  EXPECT_TRUE(has(renderSimulationHtml(testing::sampleReport()),
                  "No run without an operator to compare against"));
}

TEST(SimulationHtmlTest, SavingsAgainstRiskOnePointPerRunTheBaselineAtTheOrigin) {
  SimulationReport r = baselineReport();
  r.runs.push_back(testing::run("krr"));
  r.runs.back().nodes.nodeHours = 8;  // 20% saved
  r.runs.back().memory.oomKills = 4;
  const std::string h = renderSimulationHtml(r);
  EXPECT_EQ(occurrences(h, R"(<svg class="chart tradeoff")"), 2u);
  EXPECT_TRUE(has(h, ">node-hours saved against none (%)</text>"));
  EXPECT_TRUE(has(h, ">added OOM kills + evictions</text>"));
  EXPECT_TRUE(has(h, ">added samples CPU &gt; request (pp)</text>"));
  EXPECT_EQ(occurrences(h, R"(<g class="point">)"), 6u);  // 3 runs × 2 charts
  // x from 0 to 50 (35% in steps of 10, one step of room), 70 … 436; none at the origin.
  EXPECT_EQ(occurrences(h, R"(<title>none: 0.0, 0</title><circle cx="70.0")"), 2u);
  // Disruptions: attune 1 OOM kill + 0 evictions against 0 + 1: none added; krr 4 + 0: 3 added.
  EXPECT_TRUE(has(h, R"(<title>attune: 35.0, 0</title><circle cx="326.2")"));
  EXPECT_TRUE(has(h, R"(<title>krr: 20.0, 3</title><circle cx="216.4")"));
  EXPECT_TRUE(has(h, R"(<title>attune: 35.0, 2.5</title>)"));
  EXPECT_TRUE(has(h, R"(text-anchor="start">krr</text></g>)"));
  // Node-hours that no run changed say nothing: the requests saved instead, (50 + 12.5) / 2.
  for (SimulationRun& run : r.runs) run.nodes.nodeHours = 10;
  const std::string same = renderSimulationHtml(r);
  EXPECT_TRUE(has(same, ">requests saved against none (%, CPU and memory)</text>"));
  EXPECT_TRUE(has(same, R"(<title>attune: 31.2, 0</title>)"));
}

TEST(SimulationHtmlTest, WorkloadsWithSafetyEventsFirstThenByImpact) {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  SimulationRun& run = r.runs[0];  // requests 3 core-h and 2 GiB-h before
  run.workloads.clear();
  const auto workload = [](std::string name, double cpuSaved, double memorySaved, bool oom) {
    WorkloadTimeline w = testing::workload(std::move(name));
    w.events.resize(1);  // the Resized event only
    if (oom) w.events.push_back({.time = testing::at(5), .kind = "OOMKilled", .pod = "p"});
    w.cpuRequestCoreHoursBefore = 1;
    w.cpuRequestCoreHoursAfter = 1 - cpuSaved;
    w.memoryRequestGibHoursBefore = 1;
    w.memoryRequestGibHoursAfter = 1 - memorySaved;
    return w;
  };
  run.workloads.push_back(workload("a-small", 0.1, 0, false));   // 0.033
  run.workloads.push_back(workload("b-memory", 0, 0.5, false));  // 0.25
  run.workloads.push_back(workload("c-oom", 0, 0, true));        // a safety event
  run.workloads.push_back(workload("d-cpu", 0.6, 0, false));     // 0.2
  const std::string h = renderSimulationHtml(r);
  std::vector<std::size_t> at;
  for (const char* name : {"c-oom", "b-memory", "d-cpu", "a-small"}) {
    at.push_back(h.find(std::string("<h3>shop/Deployment/") + name + "</h3>"));
    ASSERT_NE(at.back(), std::string::npos) << name;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
}

TEST(SimulationHtmlTest, ClusterNodesAndRequestsAgainstUsageOverTime) {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  for (int i = 0; i < 3; ++i) {
    r.runs[0].cluster.push_back({.time = testing::at(60 * i),
                                 .nodes = i == 0 ? 3 : 2,
                                 .cpuAllocatable = i == 0 ? 12.0 : 8.0,
                                 .cpuRequest = 6.0 - i,
                                 .cpuUsage = 2,
                                 .memoryAllocatable = (i == 0 ? 48.0 : 32.0) * kGiB,
                                 .memoryRequest = 20 * kGiB,
                                 .memoryUsage = 10 * kGiB});
  }
  const std::string h = renderSimulationHtml(r);
  EXPECT_TRUE(has(h, R"(<text class="title" x="70.0" y="16">Nodes (count)</text>)"));
  EXPECT_TRUE(has(h, R"(<text class="title" x="70.0" y="16">Cluster CPU (cores)</text>)"));
  EXPECT_TRUE(has(h, R"(<text class="title" x="70.0" y="16">Cluster memory (GiB)</text>)"));
  // 3 nodes, 2 from 01:00 (half the axis) to the end; the y axis tops at 3 (y = 28).
  EXPECT_TRUE(has(h, R"(<path class="nodes" d="M70.0,28.0H507.0V90.7H944.0")")) << h;
  // CPU: allocatable dashed 12 → 8, requests 6, 5, 4, usage flat at 2 (y axis to 15 by 5).
  EXPECT_TRUE(has(h, R"(<path class="allocatable" d="M70.0,65.6H507.0V115.7H944.0" fill="none" )"
                     R"(stroke="#d95f02" stroke-width="1.5" stroke-dasharray="6 4"/>)"));
  EXPECT_TRUE(has(h, R"(<polyline class="usage" points="70.0,190.9 507.0,190.9 944.0,190.9")"));
  // Memory in GiB: usage at 10 of an axis to 60 (48 in steps of 20).
  EXPECT_TRUE(has(h, R"(<polyline class="usage" points="70.0,184.7 507.0,184.7 944.0,184.7")"));
  // The cluster comes before the workloads of the run.
  EXPECT_LT(h.find("Cluster: nodes, requests and usage"), h.find("<h3>shop/Deployment/web</h3>"));
}

}  // namespace
}  // namespace attune::report
