#include "metrics/prometheus/prometheus_source.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>

#include "metrics/prometheus/owners.h"
#include "metrics/prometheus/promql.h"

namespace attune::metrics {
namespace {

ContainerId containerOf(const PromSeries& s) {
  return ContainerId{std::string(s.label("namespace")), std::string(s.label("pod")),
                     std::string(s.label("container"))};
}

bool hasContainer(const PromSeries& s) {
  return !s.label("namespace").empty() && !s.label("pod").empty() && !s.label("container").empty();
}

// Instant results have exactly one point per series (series without points were dropped).
double instantValue(const PromSeries& s) { return s.points.front().value; }

Millicores coresToMillicores(double cores) {
  // Tolerates binary rounding (0.1 core × 1000 = 100.00000000000001) before rounding up.
  return Millicores(static_cast<std::int64_t>(std::ceil(cores * 1000.0 - 1e-6)));
}

Bytes toBytes(double bytes) { return Bytes(std::llround(bytes)); }

std::string nodeName(const PromSeries& s) {
  if (auto node = s.label("node"); !node.empty()) return std::string(node);
  std::string_view instance = s.label("instance");
  if (auto colon = instance.rfind(':');
      colon != std::string_view::npos && instance.find(']') == std::string_view::npos) {
    instance = instance.substr(0, colon);
  } else if (instance.starts_with('[') && instance.find("]:") != std::string_view::npos) {
    instance = instance.substr(1, instance.find("]:") - 1);  // "[::1]:9100"
  }
  return std::string(instance);
}

}  // namespace

PrometheusSource::PrometheusSource(PrometheusOptions options, Clock& clock)
    : PrometheusSource(
          std::move(options),
          [](const HttpClientOptions& http) -> HttpTransportPtr {
            return std::make_unique<CurlHttpClient>(http);
          },
          clock) {}

PrometheusSource::PrometheusSource(PrometheusOptions options, TransportFactory transports,
                                   Clock& clock)
    : PrometheusSource(options, transports(options.http), clock) {
  transports_ = std::move(transports);
}

PrometheusSource::PrometheusSource(PrometheusOptions options, HttpTransportPtr transport,
                                   Clock& clock)
    : options_(std::move(options)),
      transport_(std::move(transport)),
      client_(options_.client, *transport_, clock),
      clock_(clock) {}

std::unique_ptr<MetricsSource> PrometheusSource::parallelCopy() const {
  if (!transports_) return nullptr;
  return std::make_unique<PrometheusSource>(options_, transports_, clock_);
}

Range rangePart(const Range& range, Time start, std::size_t points) {
  const Duration step = std::max(range.step, Duration(std::chrono::milliseconds(1)));
  const auto most = static_cast<std::int64_t>(
      std::clamp<std::size_t>(points, 1, static_cast<std::size_t>(kMaxStepsPerRangeQuery) + 1));
  return Range{start, std::min(range.end, start + (most - 1) * step), step};
}

std::size_t PrometheusSource::pointsPerPart(std::string_view queryType) const {
  constexpr std::size_t kAtBound = kMaxStepsPerRangeQuery + 1;
  if (options_.maxSamplesPerQuery == 0) return kAtBound;
  const auto hint = seriesSeen_.find(queryType);
  const std::size_t series = hint == seriesSeen_.end() ? kUnknownSeries : hint->second;
  return std::clamp<std::size_t>(options_.maxSamplesPerQuery / std::max<std::size_t>(series, 1),
                                 kMinPointsPerPart, kAtBound);
}

Result<std::vector<PromSeries>> PrometheusSource::run(std::string_view queryType,
                                                      const Scope& scope, const QueryText& text,
                                                      const std::optional<Range>& range, Time at) {
  std::vector<PromSeries> all;
  for (const auto& q : promql::queryScopesOf(scope)) {
    const std::string query = text(q);
    // Sends the query over `part` (or as an instant query at `at`); the answer's series.
    const auto send = [&](const std::optional<Range>& part) -> Result<std::vector<PromSeries>> {
      const Time started = options_.onQuery ? clock_.now() : Time{};
      auto response = part ? client_.queryRange(query, *part) : client_.query(query, at);
      if (options_.onQuery) {
        options_.onQuery({.queryType = queryType,
                          .ns = q.ns ? std::string_view(*q.ns) : std::string_view(),
                          .range = part.has_value(),
                          .duration = clock_.now() - started,
                          .bytes = response ? response->bytes : 0,
                          .ok = response.has_value()});
      }
      if (!response) return std::unexpected(response.error());
      return std::move(response->series);
    };
    if (!range) {
      auto series = send(std::nullopt);
      if (!series) return std::unexpected(series.error());
      std::ranges::move(*series, std::back_inserter(all));
      continue;
    }
    // In parts, in time order: a series seen in an earlier part continues (its points sized for
    // the rest of the range at first sight). Each part's length follows the series the last
    // answer of this kind of query had.
    std::map<Labels, std::size_t, std::less<>> seen;  // a series' index in `all`
    Range part = rangePart(*range, range->start, pointsPerPart(queryType));
    const bool whole = part.end == range->end;
    for (;;) {
      auto series = send(part);
      if (!series) return std::unexpected(series.error());
      // An empty answer (a part before the history begins) says nothing of how many series the
      // next part holds: the estimate stays that of the last answer with series.
      if (!series->empty()) seriesSeen_.insert_or_assign(std::string(queryType), series->size());
      for (PromSeries& s : *series) {
        if (whole) {
          all.push_back(std::move(s));
          continue;
        }
        const auto [it, added] = seen.try_emplace(s.labels, all.size());
        if (added) {
          // Sized for a point at every step from its first one to the range's end (the decoder
          // drops series without points).
          all.push_back(PromSeries{std::move(s.labels), {}});
          all.back().points.reserve(
              static_cast<std::size_t>((range->end - s.points.front().time) / part.step) + 1);
        }
        std::vector<Point>& points = all[it->second].points;
        points.insert(points.end(), s.points.begin(), s.points.end());
      }
      if (part.end >= range->end) break;
      part = rangePart(*range, part.end + part.step, pointsPerPart(queryType));
    }
  }
  return all;
}

Result<std::vector<ContainerSeries>> PrometheusSource::containerSeries(std::string_view queryType,
                                                                       const Scope& scope,
                                                                       const Range& range,
                                                                       const QueryText& text) {
  auto series = run(queryType, scope, text, range);
  if (!series) return std::unexpected(series.error());
  std::vector<ContainerSeries> out;
  out.reserve(series->size());
  for (auto& s : *series) {
    if (hasContainer(s)) out.push_back(ContainerSeries{containerOf(s), std::move(s.points)});
  }
  return out;
}

Duration PrometheusSource::rateWindow(const Range& range) const {
  return std::max(range.step, options_.minRateWindow);
}

Result<std::vector<ContainerSeries>> PrometheusSource::cpuUsage(const Scope& scope,
                                                                const Range& range) {
  const Duration window = rateWindow(range);
  return containerSeries("cpu_usage", scope, range,
                         [&](const auto& q) { return promql::cpuUsage(q, window); });
}

Result<std::vector<ContainerSeries>> PrometheusSource::cpuPressureWaiting(const Scope& scope,
                                                                          const Range& range) {
  const Duration window = rateWindow(range);
  return containerSeries("cpu_pressure", scope, range,
                         [&](const auto& q) { return promql::cpuPressureWaiting(q, window); });
}

Result<std::vector<ContainerSeries>> PrometheusSource::memoryWorkingSet(const Scope& scope,
                                                                        const Range& range) {
  return containerSeries("memory_working_set", scope, range, promql::memoryWorkingSet);
}

Result<std::vector<ContainerSeries>> PrometheusSource::cpuThrottleRatio(const Scope& scope,
                                                                        const Range& range) {
  const Duration window = std::max(range.step, options_.throttleWindow);
  return containerSeries("cpu_throttle", scope, range,
                         [&](const auto& q) { return promql::cpuThrottleRatio(q, window); });
}

Result<std::vector<OomKill>> PrometheusSource::oomKills(const Scope& scope, const Range& range) {
  auto series = containerSeries("oom_kills", scope, range,
                                [&](const auto& q) { return promql::oomKills(q, range.step); });
  if (!series) return std::unexpected(series.error());
  std::vector<OomKill> out;
  for (const auto& s : *series) {
    for (const Point& p : s.points) out.push_back(OomKill{s.id, p.time, toBytes(p.value)});
  }
  return out;
}

Result<std::vector<RestartCount>> PrometheusSource::restartCounts(const Scope& scope, Time at) {
  auto series = run("restart_counts", scope, promql::restartCounts, std::nullopt, at);
  if (!series) return std::unexpected(series.error());
  std::vector<RestartCount> out;
  for (const auto& s : *series) {
    if (hasContainer(s)) out.push_back(RestartCount{containerOf(s), std::llround(instantValue(s))});
  }
  return out;
}

Result<std::vector<ContainerResourceValues>> PrometheusSource::resources(const Scope& scope,
                                                                         Time at) {
  auto series = run("resources", scope, promql::resources, std::nullopt, at);
  if (!series) return std::unexpected(series.error());
  std::map<ContainerId, ContainerResourceValues> byContainer;
  for (const auto& s : *series) {
    if (!hasContainer(s)) continue;
    const ContainerId id = containerOf(s);
    ContainerResourceValues& r =
        byContainer.try_emplace(id, ContainerResourceValues{{}, id}).first->second;
    const bool limit = s.label("__name__") == "kube_pod_container_resource_limits";
    const double value = instantValue(s);
    if (s.label("resource") == "cpu") {
      (limit ? r.cpuLimit : r.cpuRequest) = coresToMillicores(value);
    } else if (s.label("resource") == "memory") {
      (limit ? r.memoryLimit : r.memoryRequest) = toBytes(value);
    }
  }
  std::vector<ContainerResourceValues> out;
  out.reserve(byContainer.size());
  for (auto& [id, r] : byContainer) out.push_back(std::move(r));
  return out;
}

Result<std::vector<PodOwner>> PrometheusSource::podOwners(const Scope& scope, Time at) {
  auto series = run("pod_owners", scope, promql::owners, std::nullopt, at);
  if (!series) return std::unexpected(series.error());
  return resolvePodOwners(*series);
}

Result<std::vector<NodeSeries>> PrometheusSource::nodeLoad(const Range& range) {
  auto series = run(
      "node_load", Scope{}, [](const auto&) { return promql::nodeLoad(); }, range);
  if (!series) return std::unexpected(series.error());
  std::map<std::string, std::vector<Point>> byNode;  // the first series of a node wins
  for (auto& s : *series) {
    if (std::string node = nodeName(s); !node.empty())
      byNode.try_emplace(node, std::move(s.points));
  }
  std::vector<NodeSeries> out;
  for (auto& [node, points] : byNode) out.push_back(NodeSeries{node, std::move(points)});
  return out;
}

Result<std::vector<NodeCapacity>> PrometheusSource::nodeCapacity(Time at) {
  auto series = run(
      "node_capacity", Scope{}, [](const auto&) { return promql::nodeCapacity(); }, std::nullopt,
      at);
  if (!series) return std::unexpected(series.error());
  std::map<std::string, std::pair<std::optional<Millicores>, std::optional<Bytes>>> byNode;
  for (const auto& s : *series) {
    auto& [cpu, memory] = byNode[std::string(s.label("node"))];
    if (s.label("resource") == "cpu") cpu = coresToMillicores(instantValue(s));
    if (s.label("resource") == "memory") memory = toBytes(instantValue(s));
  }
  std::vector<NodeCapacity> out;
  for (const auto& [node, capacity] : byNode) {
    if (!node.empty() && capacity.first && capacity.second) {
      out.push_back(NodeCapacity{node, *capacity.first, *capacity.second});
    }
  }
  return out;
}

}  // namespace attune::metrics
