#include "sim/telemetry/recorded_series.h"

namespace attune::sim {

namespace {

constexpr std::string_view kRequestsTotal = "http_requests_total";

}  // namespace

std::vector<metrics::query::Series> RecordedSeries::select(const metrics::query::Selector& selector,
                                                           Time from, Time to) const {
  std::vector<metrics::query::Series> out;
  const auto& workloads = recorder_.requestWorkloads();
  for (const auto& [key, samples] : recorder_.requests()) {
    auto workload = workloads.find(key);
    if (workload == workloads.end()) continue;
    const WorkloadRequests& w = workload->second;
    metrics::query::Labels labels{{"__name__", std::string(kRequestsTotal)},
                                  {"namespace", w.namespace_},
                                  {w.kindLabel, w.name}};
    if (!metrics::query::matches(labels, selector.matchers)) continue;
    metrics::query::Series series{std::move(labels), {}};
    for (const RequestSample& s : samples) {
      if (s.tick < recorder_.firstTick() || s.tick >= recorder_.endTick()) continue;
      const Time at = recorder_.tickTime(s.tick);
      if (at >= from && at <= to) series.samples.push_back({at, s.total});
    }
    if (!series.samples.empty()) out.push_back(std::move(series));
  }
  return out;
}

}  // namespace attune::sim
