// GatedSource: a MetricsSource in front of another that can be closed with an error. While it
// is closed every read fails at once with that error, without reaching the backend; while open
// every read is forwarded. The operator closes it when the check of its metrics backend made
// before a pass fails: the pass then fails closed for every policy that reads that backend (no
// resize without metrics), instead of sending each policy's reads to a backend known to be down
// and waiting out each one's retries.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/error.h"
#include "metrics/metrics_source.h"

namespace attune::metrics {

class GatedSource final : public MetricsSource {
 public:
  explicit GatedSource(MetricsSource& inner) : inner_(inner) {}

  void close(Error error) { closed_ = std::move(error); }
  void open() { closed_.reset(); }
  bool isOpen() const { return !closed_; }

  Result<std::vector<ContainerSeries>> cpuUsage(const Scope& scope, const Range& range) override {
    return through(&MetricsSource::cpuUsage, scope, range);
  }
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope& scope,
                                                          const Range& range) override {
    return through(&MetricsSource::cpuPressureWaiting, scope, range);
  }
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope& scope,
                                                        const Range& range) override {
    return through(&MetricsSource::memoryWorkingSet, scope, range);
  }
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope& scope,
                                                        const Range& range) override {
    return through(&MetricsSource::cpuThrottleRatio, scope, range);
  }
  Result<std::vector<OomKill>> oomKills(const Scope& scope, const Range& range) override {
    return through(&MetricsSource::oomKills, scope, range);
  }
  Result<std::vector<RestartCount>> restartCounts(const Scope& scope, Time at) override {
    return through(&MetricsSource::restartCounts, scope, at);
  }
  Result<std::vector<ContainerResourceValues>> resources(const Scope& scope, Time at) override {
    return through(&MetricsSource::resources, scope, at);
  }
  Result<std::vector<PodOwner>> podOwners(const Scope& scope, Time at) override {
    return through(&MetricsSource::podOwners, scope, at);
  }
  Result<std::vector<NodeSeries>> nodeLoad(const Range& range) override {
    return through(&MetricsSource::nodeLoad, range);
  }
  Result<std::vector<NodeCapacity>> nodeCapacity(Time at) override {
    return through(&MetricsSource::nodeCapacity, at);
  }
  // The inner source's copy while open (ungated: a copy lives for one pass, made after the
  // check); none while closed, so that every read comes through here and fails.
  std::unique_ptr<MetricsSource> parallelCopy() const override {
    return closed_ ? nullptr : inner_.parallelCopy();
  }

 private:
  // `read` of the inner source, or the closing error while closed.
  template <typename Out, typename... Params, typename... Args>
  Result<Out> through(Result<Out> (MetricsSource::*read)(Params...), const Args&... args) {
    if (closed_) return std::unexpected(*closed_);
    return (inner_.*read)(args...);
  }

  MetricsSource& inner_;
  std::optional<Error> closed_;
};

}  // namespace attune::metrics
