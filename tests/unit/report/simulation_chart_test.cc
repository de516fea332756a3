#include "report/simulation_chart.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "simulation_testing.h"

namespace attune::report {
namespace {

TEST(SimulationChartTest, ShortSeriesAreKept) {
  const std::vector<UsagePoint> points = testing::cpuSeries(600);
  const std::vector<UsagePoint> out = downsample(points, 600);
  ASSERT_EQ(out.size(), 600u);
  EXPECT_EQ(out.back().time, points.back().time);
}

TEST(SimulationChartTest, DownsamplingKeepsASingleSampleSpike) {
  std::vector<UsagePoint> points = testing::cpuSeries(10001);
  points[7777].usage = 5;
  points[7777].request = 0.75;
  const std::vector<UsagePoint> out = downsample(points, 600);
  EXPECT_LE(out.size(), 600u);
  EXPECT_GE(out.size(), 500u);
  const auto spike = std::max_element(
      out.begin(), out.end(), [](const auto& a, const auto& b) { return a.usage < b.usage; });
  EXPECT_EQ(spike->usage, 5);
  EXPECT_EQ(spike->request, 0.75);
  EXPECT_LE(spike->time, points[7777].time);
  EXPECT_GT(spike->time, points[7777].time - std::chrono::minutes(5 * 17));
  EXPECT_EQ(out.front().time, points.front().time);
  for (std::size_t i = 1; i < out.size(); ++i) EXPECT_LT(out[i - 1].time, out[i].time);
}

TEST(SimulationChartTest, DownsampledLimitIsTheLargestSetOne) {
  std::vector<UsagePoint> points = testing::cpuSeries(4);
  points[0].limit.reset();
  points[1].limit = 2.0;
  points[2].limit.reset();
  points[3].limit.reset();
  const std::vector<UsagePoint> out = downsample(points, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].limit, 2.0);
  EXPECT_FALSE(out[1].limit.has_value());
}

TEST(SimulationChartTest, LimitGapsBreakTheDashedLine) {
  std::vector<UsagePoint> points = testing::cpuSeries(4);
  points[1].limit.reset();
  const std::string svg =
      renderUsageChart(points, {}, ChartResource::kCpu, {testing::at(0), testing::at(15)});
  const auto begin = svg.find(R"(<path class="limit" d=")");
  ASSERT_NE(begin, std::string::npos);
  const std::string d = svg.substr(begin + 23, svg.find('"', begin + 23) - begin - 23);
  EXPECT_EQ(std::count(d.begin(), d.end(), 'M'), 2) << d;
}

TEST(SimulationChartTest, EscapesEveryHtmlSpecialCharacter) {
  EXPECT_EQ(escapeHtml(R"(<a href="x">'&'</a>)"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(SimulationChartTest, EachKnownEventKindHasItsOwnColour) {
  std::vector<std::string_view> colours;
  for (const char* kind : {"Resized", "Reverted", "ResizeSkipped", "ResizeFailed", "OOMKilled",
                           "Evicted", "Restarted", "Other"}) {
    colours.push_back(eventColor(kind));
  }
  std::sort(colours.begin(), colours.end());
  EXPECT_EQ(std::unique(colours.begin(), colours.end()), colours.end());
}

// Points at one spot get their labels stacked; large values get compact tick labels.
TEST(SimulationChartTest, TradeoffChartStacksLabelsAndShortensTicks) {
  const std::string svg =
      renderTradeoffChart("t", "x", "y",
                          {{.label = "none", .x = 0, .y = 0, .baseline = true},
                           {.label = "a", .x = 0, .y = 0, .baseline = false},
                           {.label = "b", .x = 10, .y = -1.5e6, .baseline = false}});
  // y from -2M to 500k (steps of 500k, one of room each side): 0 is at 28 + 244 × 0.5/2.5.
  for (const char* tick : {">-2M</text>", ">-1.5M</text>", ">-500k</text>", ">500k</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick << "\n" << svg;
  }
  EXPECT_NE(svg.find(R"(<circle cx="70.0" cy="76.8" r="5" fill="#777777"/><text x="78.0" )"
                     R"(y="68.8" text-anchor="start">none</text>)"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find(R"(<text x="78.0" y="82.8" text-anchor="start">a</text>)"), std::string::npos)
      << svg;
}

}  // namespace
}  // namespace attune::report
