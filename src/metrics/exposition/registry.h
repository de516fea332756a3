// The operator's own metrics (attune_resize_total, attune_reverts_total, ...): counter, gauge
// and histogram families with labels, rendered in the Prometheus text exposition format.
//
// Thread-safe: the controller updates values while an HTTP thread renders /metrics.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attune::metrics {

enum class MetricType { kCounter, kGauge, kHistogram };

// One metric family: a name, help text, label names and one value (or histogram) per distinct
// label-value tuple. Obtained from a Registry, which owns it.
class MetricFamily {
 public:
  MetricFamily(std::string name, std::string help, MetricType type,
               std::vector<std::string> labelNames, std::vector<double> buckets);

  const std::string& name() const { return name_; }
  MetricType type() const { return type_; }

  // Counter: adds `delta` (>= 0; negative deltas are ignored, as counters never decrease).
  // `labelValues` has one value per label name, in order; a wrong count is a programming error
  // (asserted).
  void inc(const std::vector<std::string>& labelValues, double delta = 1);
  // Gauge: sets the value.
  void set(const std::vector<std::string>& labelValues, double value);
  // Gauge: removes the series (e.g. a workload that no longer exists).
  void remove(const std::vector<std::string>& labelValues);
  // Histogram: records one observation.
  void observe(const std::vector<std::string>& labelValues, double value);

  // Counter or gauge value; 0 when the series does not exist.
  double value(const std::vector<std::string>& labelValues) const;
  // Histogram observation count; 0 when the series does not exist.
  std::uint64_t count(const std::vector<std::string>& labelValues) const;

  // Appends HELP, TYPE and every series, sorted by label values.
  void render(std::string& out) const;

 private:
  struct Series {
    double value = 0;                    // counter/gauge value, histogram sum
    std::uint64_t count = 0;             // histogram observations
    std::vector<std::uint64_t> buckets;  // histogram: observations <= each upper bound
  };
  Series& series(const std::vector<std::string>& labelValues);  // requires mutex_ held

  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> labelNames_;
  std::vector<double> bounds_;  // histogram upper bounds, ascending, without +Inf
  // Hashes a series' label values: a pass sets tens of thousands of series, each looked up by
  // its values (render() sorts them).
  struct LabelValuesHash {
    std::size_t operator()(const std::vector<std::string>& values) const;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::vector<std::string>, Series, LabelValuesHash> series_;
};

class Registry {
 public:
  // Registers (or returns the already registered) family. Registering a name again with a
  // different type or label names is a programming error (asserted).
  MetricFamily& counter(std::string name, std::string help, std::vector<std::string> labelNames);
  MetricFamily& gauge(std::string name, std::string help, std::vector<std::string> labelNames);
  // `buckets`: ascending upper bounds; +Inf is implied.
  MetricFamily& histogram(std::string name, std::string help, std::vector<std::string> labelNames,
                          std::vector<double> buckets);

  // Every family in name order, in the text exposition format 0.0.4.
  std::string render() const;

 private:
  MetricFamily& add(std::string name, std::string help, MetricType type,
                    std::vector<std::string> labelNames, std::vector<double> buckets);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<MetricFamily>, std::less<>> families_;
};

// Default buckets for durations in seconds (as client_golang's DefBuckets).
std::vector<double> defaultDurationBuckets();

}  // namespace attune::metrics
