#include "report/simulation_chart.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace attune::report {
namespace {

// Geometry of every chart, in SVG user units.
constexpr double kWidth = 960, kHeight = 260;
constexpr double kLeft = 70, kRight = kWidth - 16, kTop = 28, kBottom = kHeight - 44;

constexpr const char* kUsageColor = "#2c7fb8";
constexpr const char* kRequestColor = "#222222";
constexpr const char* kLimitColor = "#d95f02";

std::string num(double v) { return fmt::format("{:.1f}", v); }

struct Unit {
  double scale;
  const char* name;
};

Unit unitFor(ChartResource resource, double maxValue) {
  if (resource == ChartResource::kCpu) return {1, "cores"};
  constexpr double kKi = 1024, kMi = kKi * 1024, kGi = kMi * 1024;
  if (maxValue >= kGi) return {kGi, "GiB"};
  if (maxValue >= kMi) return {kMi, "MiB"};
  if (maxValue >= kKi) return {kKi, "KiB"};
  return {1, "bytes"};
}

// 1, 2 or 5 × 10^k, the smallest not below x (> 0).
double niceStep(double x) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(x)));
  const double f = x / magnitude;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * magnitude;
}

// Maps times and values to chart coordinates.
class Scale {
 public:
  Scale(TimeRange range, double top) : range_(range), top_(top) {
    span_ = std::max<double>(std::chrono::duration<double>(range.to - range.from).count(), 1.0);
  }
  double x(Time t) const {
    const double s = std::chrono::duration<double>(t - range_.from).count();
    return kLeft + std::clamp(s / span_, 0.0, 1.0) * (kRight - kLeft);
  }
  double y(double v) const { return kBottom - std::clamp(v / top_, 0.0, 1.0) * (kBottom - kTop); }
  double spanSeconds() const { return span_; }

 private:
  TimeRange range_;
  double top_;
  double span_ = 1;
};

// A step line through the points where `value` is set: holds each value until the next point
// and the last one until `endX`; a gap where unset.
std::string stepPath(const std::vector<UsagePoint>& points,
                     const std::function<std::optional<double>(const UsagePoint&)>& value,
                     const Scale& scale, double endX) {
  std::string d;
  std::optional<double> lastY;
  for (const UsagePoint& p : points) {
    const double x = scale.x(p.time);
    const std::optional<double> v = value(p);
    if (!v) {
      if (lastY) d += "H" + num(x);
      lastY.reset();
      continue;
    }
    const double y = scale.y(*v);
    if (!lastY) {
      d += (d.empty() ? "M" : " M") + num(x) + "," + num(y);
    } else if (num(y) != num(*lastY)) {
      d += "H" + num(x) + "V" + num(y);
    }
    lastY = y;
  }
  if (lastY) d += "H" + num(endX);
  return d;
}

std::string yAxis(const Scale& scale, double step, double top) {
  std::string out;
  for (int i = 0; i * step <= top * (1 + 1e-9); ++i) {
    const double v = std::round(i * step * 1e9) / 1e9;
    const std::string y = num(scale.y(v));
    out += fmt::format(R"(<line class="grid" x1="{}" y1="{}" x2="{}" y2="{}"/>)", num(kLeft), y,
                       num(kRight), y);
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{:g}</text>)", num(kLeft - 6),
                       num(scale.y(v) + 4), v);
  }
  return out;
}

std::string timeLabel(Time t, std::int64_t interval, double span) {
  const std::string s = formatRfc3339(t);  // YYYY-MM-DDTHH:MM:SSZ
  if (interval >= 86400) return s.substr(5, 5);
  if (span >= 86400) return s.substr(5, 5) + " " + s.substr(11, 5);
  if (interval >= 60) return s.substr(11, 5);
  return s.substr(11, 8);
}

std::string xAxis(const Scale& scale, TimeRange range) {
  constexpr std::int64_t kCandidates[] = {1,     5,      10,     30,      60,     300,
                                          900,   1800,   3600,   10800,   21600,  43200,
                                          86400, 172800, 604800, 1209600, 2419200};
  const double span = scale.spanSeconds();
  std::int64_t interval = kCandidates[std::size(kCandidates) - 1];
  for (std::int64_t c : kCandidates) {
    if (span / static_cast<double>(c) <= 8) {
      interval = c;
      break;
    }
  }
  while (span / static_cast<double>(interval) > 8) interval *= 2;
  const std::int64_t from =
      std::chrono::floor<std::chrono::seconds>(range.from).time_since_epoch().count();
  std::int64_t first = from / interval * interval;
  if (first < from) first += interval;
  std::string out = fmt::format(R"(<line class="axis" x1="{}" y1="{}" x2="{}" y2="{}"/>)",
                                num(kLeft), num(kBottom), num(kRight), num(kBottom));
  for (std::int64_t s = first; Time(std::chrono::seconds(s)) <= range.to; s += interval) {
    const Time t{std::chrono::seconds(s)};
    const std::string x = num(scale.x(t));
    out += fmt::format(R"(<line class="axis" x1="{}" y1="{}" x2="{}" y2="{}"/>)", x, num(kBottom),
                       x, num(kBottom + 4));
    out += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)", x,
                       num(kBottom + 26), timeLabel(t, interval, span));
  }
  out += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">time (UTC)</text>)", num(kRight),
                     num(kHeight - 4));
  return out;
}

std::string eventMarks(const std::vector<TimelineEvent>& events, const Scale& scale) {
  std::vector<const TimelineEvent*> sorted;
  for (const TimelineEvent& e : events) sorted.push_back(&e);
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const TimelineEvent* a, const TimelineEvent* b) { return a->time < b->time; });
  // Routine events (resizes, skips, restarts) are a rug of short ticks under the plot, one
  // path per kind with one tooltip: a month of hourly resizes costs a few bytes per pixel.
  // Safety events (reverts, failures, OOM kills, evictions) each get a marker across the plot,
  // one per kind and pixel, whose tooltip says how many it stands for.
  const auto routine = [](std::string_view kind) {
    return kind == "Resized" || kind == "ResizeSkipped" || kind == "Restarted";
  };
  std::map<std::string_view, std::pair<std::set<long>, int>> rugs;
  std::map<std::pair<std::string_view, long>, std::pair<const TimelineEvent*, int>> marks;
  std::vector<std::pair<std::string_view, long>> order;
  for (const TimelineEvent* e : sorted) {
    const long px = std::lround(scale.x(e->time));
    if (routine(e->kind)) {
      auto& rug = rugs[e->kind];
      rug.first.insert(px);
      ++rug.second;
      continue;
    }
    const std::pair<std::string_view, long> key{e->kind, px};
    auto [it, inserted] = marks.try_emplace(key, e, 0);
    if (inserted) order.push_back(key);
    ++it->second.second;
  }
  std::string out;
  for (const auto& [kind, rug] : rugs) {
    std::string d;
    for (long px : rug.first) d += fmt::format("M{},{}v-6", px, num(kBottom));
    out +=
        fmt::format(R"(<g class="event"><title>{} {} event{} (listed below)</title>)"
                    R"(<path d="{}" stroke="{}" stroke-width="1.5"/></g>)",
                    rug.second, escapeHtml(kind), rug.second == 1 ? "" : "s", d, eventColor(kind));
  }
  for (const auto& key : order) {
    const auto [e, count] = marks.at(key);
    const std::string x = num(scale.x(e->time));
    const std::string_view color = eventColor(e->kind);
    std::string title = formatRfc3339(e->time) + " " + e->kind + " " + e->pod + "/" + e->container +
                        (e->detail.empty() ? "" : ": " + e->detail);
    if (count > 1) title += fmt::format(" (and {} more {} here)", count - 1, e->kind);
    out += fmt::format(
        R"(<g class="event"><title>{}</title><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" )"
        R"(stroke-opacity="0.45"/><path d="M{},{}l-4,8h8z" fill="{}"/></g>)",
        escapeHtml(title), x, num(kTop), x, num(kBottom), color, x, num(kBottom), color);
  }
  return out;
}

}  // namespace

std::vector<UsagePoint> downsample(const std::vector<UsagePoint>& points, std::size_t maxPoints) {
  assert(maxPoints > 0);
  if (points.size() <= maxPoints) return points;
  const std::size_t bucket = (points.size() + maxPoints - 1) / maxPoints;
  std::vector<UsagePoint> out;
  out.reserve((points.size() + bucket - 1) / bucket);
  for (std::size_t i = 0; i < points.size(); i += bucket) {
    UsagePoint p = points[i];
    for (std::size_t j = i + 1; j < std::min(points.size(), i + bucket); ++j) {
      const UsagePoint& q = points[j];
      p.usage = std::max(p.usage, q.usage);
      p.request = std::max(p.request, q.request);
      if (q.limit) p.limit = std::max(p.limit.value_or(*q.limit), *q.limit);
    }
    out.push_back(p);
  }
  return out;
}

std::string renderUsageChart(const std::vector<UsagePoint>& points,
                             const std::vector<TimelineEvent>& events, ChartResource resource,
                             TimeRange range) {
  assert(!points.empty());
  double maxValue = 0;
  for (const UsagePoint& p : points) {
    for (double v : {p.usage, p.request, p.limit.value_or(0)}) {
      if (std::isfinite(v)) maxValue = std::max(maxValue, v);
    }
  }
  const Unit unit = unitFor(resource, maxValue);
  const double scaledMax = maxValue > 0 ? maxValue / unit.scale : 1;
  const double step = niceStep(scaledMax / 4);
  const double top = std::ceil(scaledMax / step - 1e-9) * step;
  const Scale scale(range, top);
  const std::vector<UsagePoint> drawn = downsample(points, kMaxChartPoints);
  const auto scaled = [&](double v) { return v / unit.scale; };

  std::string usage;
  for (const UsagePoint& p : drawn) {
    if (!std::isfinite(p.usage)) continue;
    usage +=
        (usage.empty() ? "" : " ") + num(scale.x(p.time)) + "," + num(scale.y(scaled(p.usage)));
  }
  const double endX = scale.x(points.back().time);
  const std::string request = stepPath(
      drawn,
      [&](const UsagePoint& p) {
        return std::isfinite(p.request) ? std::optional<double>(scaled(p.request)) : std::nullopt;
      },
      scale, endX);
  const std::string limit = stepPath(
      drawn,
      [&](const UsagePoint& p) {
        return p.limit && std::isfinite(*p.limit) ? std::optional<double>(scaled(*p.limit))
                                                  : std::nullopt;
      },
      scale, endX);

  const char* what = resource == ChartResource::kCpu ? "CPU" : "Memory";
  std::string out = fmt::format(
      R"(<svg class="chart" viewBox="0 0 {0:g} {1:g}" width="{0:g}" height="{1:g}" role="img" )"
      R"(aria-label="{2} usage and request over time, {3}">)",
      kWidth, kHeight, what, unit.name);
  out += fmt::format(R"(<text class="title" x="{}" y="16">{} ({})</text>)", num(kLeft), what,
                     unit.name);
  out += yAxis(scale, step, top);
  out += xAxis(scale, range);
  if (!limit.empty()) {
    out += fmt::format(R"(<path class="limit" d="{}" fill="none" stroke="{}" stroke-width="1.5" )"
                       R"(stroke-dasharray="6 4"/>)",
                       limit, kLimitColor);
  }
  out += fmt::format(R"(<path class="request" d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)",
                     request, kRequestColor);
  if (drawn.size() == 1) {
    out +=
        fmt::format(R"(<circle class="usage" cx="{}" cy="{}" r="2" fill="{}"/>)",
                    num(scale.x(drawn[0].time)), num(scale.y(scaled(drawn[0].usage))), kUsageColor);
  } else {
    out += fmt::format(
        R"(<polyline class="usage" points="{}" fill="none" stroke="{}" stroke-width="1.2"/>)",
        usage, kUsageColor);
  }
  out += eventMarks(events, scale);
  return out + "</svg>";
}

std::string renderLineChart(std::string_view title, std::string_view unit,
                            const std::vector<ChartSeries>& series, TimeRange range) {
  double maxValue = 0;
  for (const ChartSeries& line : series) {
    for (const auto& [t, v] : line.points) {
      if (std::isfinite(v)) maxValue = std::max(maxValue, v);
    }
  }
  const double scaledMax = maxValue > 0 ? maxValue : 1;
  const double step = niceStep(scaledMax / 4);
  const double top = std::ceil(scaledMax / step - 1e-9) * step;
  const Scale scale(range, top);
  std::string out = fmt::format(
      R"(<svg class="chart" viewBox="0 0 {0:g} {1:g}" width="{0:g}" height="{1:g}" role="img" )"
      R"(aria-label="{2} over time, {3}">)",
      kWidth, kHeight, escapeHtml(title), escapeHtml(unit));
  out += fmt::format(R"(<text class="title" x="{}" y="16">{} ({})</text>)", num(kLeft),
                     escapeHtml(title), escapeHtml(unit));
  out += yAxis(scale, step, top);
  out += xAxis(scale, range);
  for (const ChartSeries& line : series) {
    if (line.points.empty()) continue;
    std::vector<UsagePoint> points;
    points.reserve(line.points.size());
    for (const auto& [t, v] : line.points) points.push_back({.time = t, .usage = v, .request = v});
    const std::vector<UsagePoint> drawn = downsample(points, kMaxChartPoints);
    const std::string dash = line.dashed ? R"( stroke-dasharray="6 4")" : "";
    if (line.step) {
      const std::string d = stepPath(
          drawn,
          [](const UsagePoint& p) {
            return std::isfinite(p.usage) ? std::optional<double>(p.usage) : std::nullopt;
          },
          scale, scale.x(points.back().time));
      out +=
          fmt::format(R"(<path class="{}" d="{}" fill="none" stroke="{}" stroke-width="1.5"{}/>)",
                      escapeHtml(line.name), d, line.color, dash);
      continue;
    }
    std::string xy;
    for (const UsagePoint& p : drawn) {
      if (!std::isfinite(p.usage)) continue;
      xy += (xy.empty() ? "" : " ") + num(scale.x(p.time)) + "," + num(scale.y(p.usage));
    }
    out += fmt::format(
        R"(<polyline class="{}" points="{}" fill="none" stroke="{}" stroke-width="1.2"{}/>)",
        escapeHtml(line.name), xy, line.color, dash);
  }
  return out + "</svg>";
}

namespace {

// An axis of the savings-vs-risk chart: from a round value at or below min(0, values) to one at
// or above max(0, values), ticks every `step`.
struct LinearAxis {
  double from = 0, to = 1, step = 1;
};

// A tick label: "-1.5M", "250k", "0.2".
std::string compactNumber(double v) {
  const double a = std::abs(v);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

LinearAxis linearAxis(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (hi - lo <= 0) hi = 1;
  const double step = niceStep((hi - lo) / 5);
  // One step of room past the largest value (and the smallest when negative) for the labels.
  return {.from = lo < 0 ? std::floor(lo / step + 1e-9) * step - step : 0.0,
          .to = std::ceil(hi / step - 1e-9) * step + step,
          .step = step};
}

}  // namespace

std::string renderTradeoffChart(std::string_view title, std::string_view xLabel,
                                std::string_view yLabel, const std::vector<TradeoffPoint>& points) {
  constexpr double kW = 460, kH = 320;
  constexpr double kL = 70, kR = kW - 24, kT = 28, kB = kH - 48;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  for (const TradeoffPoint& p : points) {
    if (std::isfinite(p.x)) x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
    if (std::isfinite(p.y)) y0 = std::min(y0, p.y), y1 = std::max(y1, p.y);
  }
  const LinearAxis ax = linearAxis(x0, x1);
  const LinearAxis ay = linearAxis(y0, y1);
  const auto px = [&](double v) { return kL + (v - ax.from) / (ax.to - ax.from) * (kR - kL); };
  const auto py = [&](double v) { return kB - (v - ay.from) / (ay.to - ay.from) * (kB - kT); };
  std::string out = fmt::format(
      R"(<svg class="chart tradeoff" viewBox="0 0 {0:g} {1:g}" width="{0:g}" height="{1:g}" )"
      R"(role="img" aria-label="{2}">)",
      kW, kH, escapeHtml(title));
  out += fmt::format(R"(<text class="title" x="{}" y="16">{}</text>)", num(kL), escapeHtml(title));
  for (int i = 0; ax.from + i * ax.step <= ax.to + 1e-9; ++i) {
    const double v = std::round((ax.from + i * ax.step) * 1e9) / 1e9;
    out += fmt::format(R"(<line class="{0}" x1="{1}" y1="{2}" x2="{1}" y2="{3}"/>)"
                       R"(<text x="{1}" y="{4}" text-anchor="middle">{5}</text>)",
                       v == 0 ? "axis" : "grid", num(px(v)), num(kT), num(kB), num(kB + 16),
                       compactNumber(v));
  }
  for (int i = 0; ay.from + i * ay.step <= ay.to + 1e-9; ++i) {
    const double v = std::round((ay.from + i * ay.step) * 1e9) / 1e9;
    out += fmt::format(R"(<line class="{}" x1="{}" y1="{}" x2="{}" y2="{}"/>)"
                       R"(<text x="{}" y="{}" text-anchor="end">{}</text>)",
                       v == 0 ? "axis" : "grid", num(kL), num(py(v)), num(kR), num(py(v)),
                       num(kL - 6), num(py(v) + 4), compactNumber(v));
  }
  out += fmt::format(R"(<text class="axis-title" x="{}" y="{}" text-anchor="middle">{}</text>)",
                     num((kL + kR) / 2), num(kH - 8), escapeHtml(xLabel));
  out += fmt::format(R"(<text class="axis-title" x="{0}" y="{1}" text-anchor="middle" )"
                     R"svg(transform="rotate(-90 {0} {1})">{2}</text>)svg",
                     num(16), num((kT + kB) / 2), escapeHtml(yLabel));
  // Labels of points drawn at one spot are stacked, one line each.
  std::map<std::pair<long, long>, int> labelsAt;
  for (const TradeoffPoint& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    const std::string cx = num(px(p.x));
    const std::string cy = num(py(p.y));
    const int line = labelsAt[{std::lround(px(p.x)), std::lround(py(p.y))}]++;
    const char* color = p.baseline ? "#777777" : "#2c7fb8";
    out += fmt::format(
        R"(<g class="point"><title>{0}: {1:.1f}, {2:g}</title><circle cx="{3}" cy="{4}" r="5" )"
        R"(fill="{5}"/><text x="{6}" y="{7}" text-anchor="{8}">{0}</text></g>)",
        escapeHtml(p.label), p.x, p.y, cx, cy, color, num(px(p.x) + (px(p.x) > kR - 80 ? -8 : 8)),
        num(py(p.y) - 8 + 14 * line), px(p.x) > kR - 80 ? "end" : "start");
  }
  return out + "</svg>";
}

std::string_view eventColor(std::string_view kind) {
  if (kind == "Resized") return "#1b9e77";
  if (kind == "Reverted") return "#e7298a";
  if (kind == "ResizeSkipped") return "#a6761d";
  if (kind == "ResizeFailed") return "#e6ab02";
  if (kind == "OOMKilled") return "#d62728";
  if (kind == "Evicted") return "#7570b3";
  if (kind == "Restarted") return "#ff7f0e";
  return "#666666";
}

std::string escapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace attune::report
