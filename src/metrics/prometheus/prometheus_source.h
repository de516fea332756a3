// PrometheusSource: MetricsSource over the Prometheus HTTP API v1 (also Thanos, Mimir,
// VictoriaMetrics), reading cAdvisor, kube-state-metrics and node-exporter series. The PromQL
// for each method is in promql.h and docs/prometheus.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "http/http_client.h"
#include "metrics/metrics_source.h"
#include "metrics/prometheus/prometheus_client.h"
#include "metrics/prometheus/query_metrics.h"

namespace attune::metrics {
namespace promql {
struct QueryScope;
}  // namespace promql

struct PrometheusOptions {
  PrometheusClientOptions client;  // address, retries, backoff, warning callback
  HttpClientOptions http;          // bearer token or token file, basic auth, headers, TLS, timeout
  // Rate windows are max(range.step, minRateWindow): a window must hold at least two samples,
  // so keep this ≥ 2 × the scrape interval (the default suits scrape intervals up to 1m).
  Duration minRateWindow = std::chrono::minutes(2);
  // The throttle ratio's window is max(range.step, throttleWindow) (the safety spec's [5m]).
  Duration throttleWindow = std::chrono::minutes(5);
  // Told about every query sent, once answered or failed (query_metrics.h); optional.
  QueryObserverFn onQuery;
  // A range query is read in parts of about this many samples at most (series × points): the
  // body, the parse and the decoded points of one answer grow with it, and a day of history of
  // a namespace of 500 pods is 720,500 samples a metric. The series of a part are judged from
  // the last answer of the same kind of query that had series (1,000 before the first; an
  // empty answer leaves the estimate as it was), and a part has at least 60 points. 0: parts
  // only at Prometheus' own bound (kMaxStepsPerRangeQuery).
  std::size_t maxSamplesPerQuery = 250'000;
};

// Prometheus refuses a range query whose (end - start) / step is above 11,000 (its API's
// "exceeded maximum resolution of 11,000 points per timeseries"); a week of history at a 30s
// step is 20,160.
inline constexpr std::int64_t kMaxStepsPerRangeQuery = 11'000;

// The part of `range` a range query reads from `start` (on the range's step grid, not after its
// end): at most `points` points, clamped to 1 .. kMaxStepsPerRangeQuery + 1, ending no later
// than the range. A step below 1ms counts as 1ms, as the client sends it.
Range rangePart(const Range& range, Time start, std::size_t points);

// Builds a source's transport from its HTTP options.
using TransportFactory = std::function<HttpTransportPtr(const HttpClientOptions& http)>;

// Sends one query per metric per namespace of the scope (one per metric for a cluster-wide
// scope), each aggregated by (namespace, pod, container), and concatenates the answers. A range
// longer than Prometheus answers in one query, or answering more than maxSamplesPerQuery
// samples, is read in consecutive parts (rangePart), each part one query, and a series' points
// of every part are joined. The
// scope's excluded containers are left out by the queries themselves (a `container!~` matcher
// on every per-container selector), so their series are neither read nor returned. Not
// thread-safe: one caller drives one source. `clock` must outlive the source.
class PrometheusSource final : public MetricsSource {
 public:
  // Talks HTTP(S) through libcurl.
  PrometheusSource(PrometheusOptions options, Clock& clock);
  // Talks through `transport` (tests inject a fake); has no parallelCopy().
  PrometheusSource(PrometheusOptions options, HttpTransportPtr transport, Clock& clock);
  // Talks through transports(options.http), and so do its parallel copies.
  PrometheusSource(PrometheusOptions options, TransportFactory transports, Clock& clock);

  Result<std::vector<ContainerSeries>> cpuUsage(const Scope& scope, const Range& range) override;
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope& scope,
                                                          const Range& range) override;
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope& scope,
                                                        const Range& range) override;
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope& scope,
                                                        const Range& range) override;
  // Detected per step: a step in which the container's restart count rose while its last
  // termination reason is OOMKilled is one kill, timed at the step's end, with the highest
  // working set seen during that step. Kills in one step of one container count once; a kill
  // with no working-set samples in its step is not reported.
  Result<std::vector<OomKill>> oomKills(const Scope& scope, const Range& range) override;
  Result<std::vector<RestartCount>> restartCounts(const Scope& scope, Time at) override;
  // CPU cores are rounded up to whole millicores; memory to the nearest byte.
  Result<std::vector<ContainerResourceValues>> resources(const Scope& scope, Time at) override;
  // Per pod: the scope's container exclusions do not apply.
  Result<std::vector<PodOwner>> podOwners(const Scope& scope, Time at) override;
  // Node name from the "node" label, else "instance" without its ":port".
  Result<std::vector<NodeSeries>> nodeLoad(const Range& range) override;
  // Only nodes reporting both cpu and memory capacity.
  Result<std::vector<NodeCapacity>> nodeCapacity(Time at) override;
  // A source with the same options and a transport of its own (nullptr for a source built on
  // an injected transport). Both report to options.onQuery, which must then be thread-safe.
  std::unique_ptr<MetricsSource> parallelCopy() const override;

 private:
  using QueryText = std::function<std::string(const promql::QueryScope& q)>;
  // Runs text(q) for every query scope of `scope` (promql::queryScopesOf: one per namespace, or
  // one for all namespaces), as a range query over `range` when set and as an instant query at
  // `at` otherwise, and concatenates the series. Each query is told to options_.onQuery as of
  // `queryType`.
  Result<std::vector<PromSeries>> run(std::string_view queryType, const Scope& scope,
                                      const QueryText& text, const std::optional<Range>& range,
                                      Time at = {});
  Result<std::vector<ContainerSeries>> containerSeries(std::string_view queryType,
                                                       const Scope& scope, const Range& range,
                                                       const QueryText& text);
  Duration rateWindow(const Range& range) const;
  // The points of the next part of a range query of `queryType` (PrometheusOptions::
  // maxSamplesPerQuery).
  std::size_t pointsPerPart(std::string_view queryType) const;
  static constexpr std::size_t kUnknownSeries = 1'000;
  static constexpr std::size_t kMinPointsPerPart = 60;

  PrometheusOptions options_;
  TransportFactory transports_;  // empty: the transport was injected
  HttpTransportPtr transport_;
  PrometheusClient client_;
  Clock& clock_;
  // The series of the last answer with series of each kind of range query (by queryType).
  std::map<std::string, std::size_t, std::less<>> seriesSeen_;
};

}  // namespace attune::metrics
