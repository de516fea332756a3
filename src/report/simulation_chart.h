// The inline SVG charts of the HTML simulation report (internal to src/report/): usage against
// request and limit over time for one resource of one workload, with the workload's timeline
// events marked on the time axis. Pure and deterministic.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/simulation_report.h"

namespace attune::report {

// Most points drawn per series in one chart.
inline constexpr std::size_t kMaxChartPoints = 600;

// At most `maxPoints` (> 0) points from `points` (in time order): consecutive runs of
// ceil(n / maxPoints) samples become one point at the run's first time carrying the run's
// largest usage, request and limit (limit unset when unset on the whole run), so a spike of a
// single sample stays visible. Returns `points` unchanged when it is short enough.
std::vector<UsagePoint> downsample(const std::vector<UsagePoint>& points, std::size_t maxPoints);

enum class ChartResource { kCpu, kMemory };

// The time range a chart spans; both charts of a workload share one.
struct TimeRange {
  Time from;
  Time to;
};

// One <svg> element: request as a step line, usage as a line, the limit dashed where set, axes
// with UTC time labels and the resource's unit (cores; memory in B/KiB/MiB/GiB as the values
// call for), and one marker per event (colour per kind, a <title> tooltip). Points and events
// outside `range` are clamped to its edges. `points` must not be empty.
std::string renderUsageChart(const std::vector<UsagePoint>& points,
                             const std::vector<TimelineEvent>& events, ChartResource resource,
                             TimeRange range);

// One line of a time-series chart: (time, value) points in time order.
struct ChartSeries {
  std::string name;   // the CSS class of its path and its legend text
  std::string color;  // CSS colour
  bool step = false;  // a step line (a value holds until the next point) instead of a polyline
  bool dashed = false;
  std::vector<std::pair<Time, double>> points;
};

// One <svg> element like renderUsageChart's (same size, axes and time labels): every series over
// `range`, y from 0 to a round value at or above the largest value, labelled `unit` and titled
// `title`. Series with no points are left out. Long series are thinned to kMaxChartPoints, each
// kept point carrying the largest value of the points it stands for.
std::string renderLineChart(std::string_view title, std::string_view unit,
                            const std::vector<ChartSeries>& series, TimeRange range);

// One point of the savings-vs-risk chart: a run, what it saved (x) and the risk it added (y),
// both against the run without an operator, which sits at the origin.
struct TradeoffPoint {
  std::string label;
  double x = 0;
  double y = 0;
  bool baseline = false;
};

// One <svg> element: a scatter of `points` with a labelled marker each, axes through the origin
// (negative values are drawn), the x axis titled `xLabel`, the y axis `yLabel`, and the chart
// `title`. Deterministic; `points` may be empty (axes only).
std::string renderTradeoffChart(std::string_view title, std::string_view xLabel,
                                std::string_view yLabel, const std::vector<TradeoffPoint>& points);

// The marker colour of an event kind (a CSS hex colour; grey for unknown kinds).
std::string_view eventColor(std::string_view kind);
// `text` with & < > " ' replaced by character references, safe in HTML text and attributes.
std::string escapeHtml(std::string_view text);

}  // namespace attune::report
