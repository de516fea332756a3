// The simulator's metrics source (SimMetricsSource) behind the Prometheus HTTP API v1, so that an
// operator run against `attune sim serve` reads the simulation's recorded history without a
// Prometheus server: `--prometheus-url https://<sim>/prometheus`. Used where a Prometheus holding
// the history is out of reach, such as a day of 100,000 pods (docs/sim-serve.md).
//
// It answers the queries the operator's Prometheus backend sends (metrics/prometheus/promql.h),
// and only those: a query is recognised by writing each of the backend's queries again for the
// namespace, excluded containers and window it names and comparing the texts, so any other
// PromQL is refused with 400 bad_data. Answers carry what SimMetricsSource returns, with its
// deviations from Prometheus (docs/simulator-metrics.md): rate windows include both edges; an
// OOM kill is placed at the end of the step it falls in, as the backend's query places it;
// instant queries read the cluster as it is now; a pod's owner is its top-level workload (a
// Deployment, not its ReplicaSet), which the backend resolves to the same workload.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/time.h"
#include "http/server_message.h"
#include "metrics/metrics_source.h"
#include "sim/cluster/cluster_state.h"
#include "sim/telemetry/recorder.h"
#include "sim/telemetry/sim_metrics_source.h"

namespace attune::sim::serve {

class SimHost;

// Where the API is served: <prefix>/api/v1/query and <prefix>/api/v1/query_range.
inline constexpr std::string_view kPrometheusPrefix = "/prometheus";

// One of the backend's queries, as recognised from its text.
struct OperatorQuery {
  enum class Kind {
    kCpuUsage,
    kCpuPressureWaiting,
    kMemoryWorkingSet,
    kCpuThrottleRatio,
    kOomKills,
    kRestartCounts,
    kResources,
    kOwners,
    kNodeLoad,
    kNodeCapacity,
  };
  Kind kind = Kind::kCpuUsage;
  metrics::Scope scope;  // one namespace, or every namespace; the excluded containers
  Duration window{};     // the range window (rates, throttle ratio) or step (OOM kills)
};

// The query `promql` is, or kInvalidArgument naming what was not recognised.
Result<OperatorQuery> recognizeOperatorQuery(std::string_view promql);

// The writer of an answer's JSON body, holding what was read: called without the host's lock.
using AnswerBody = std::move_only_function<std::string()>;

// Answers recognised queries from a simulation's recorder and state. Keeps one SimMetricsSource
// per window (its namespace index is built once). Not thread-safe; call under the host's lock.
class OperatorQueryAnswers {
 public:
  OperatorQueryAnswers(const Recorder& recorder, const ClusterState& state);
  ~OperatorQueryAnswers();

  // The Prometheus JSON body ("status":"success") of `query` over `range` (a range query) or
  // at `at` (an instant query): a matrix for range queries, a vector for instant ones.
  Result<std::string> answer(const OperatorQuery& query, const std::optional<metrics::Range>& range,
                             Time at);
  // The same answer in two steps: read() reads the values (under the host's lock), and the
  // returned writer encodes them (after it is released).
  Result<AnswerBody> read(const OperatorQuery& query, const std::optional<metrics::Range>& range,
                          Time at);

 private:
  SimMetricsSource& sourceFor(Duration window);

  const Recorder& recorder_;
  const ClusterState& state_;
  std::map<Duration, std::unique_ptr<SimMetricsSource>> sources_;
};

// Serves GET or POST (form body) <prefix>/api/v1/query and /api/v1/query_range from the host's
// simulation; `endpoint` is the path after the prefix. Errors are Prometheus' error envelopes:
// 400 bad_data for a query, time or step that is missing or not understood, 404 for another
// endpoint. Thread-safe (reads under the host's lock).
class PrometheusApi {
 public:
  explicit PrometheusApi(SimHost& host);
  ~PrometheusApi();
  PrometheusApi(const PrometheusApi&) = delete;
  PrometheusApi& operator=(const PrometheusApi&) = delete;

  http::server::HttpResponse handle(const http::server::HttpRequest& request,
                                    std::string_view endpoint);

 private:
  SimHost& host_;
  std::unique_ptr<OperatorQueryAnswers> answers_;  // created on the first query, under the lock
};

}  // namespace attune::sim::serve
