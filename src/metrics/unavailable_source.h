// UnavailableSource: a MetricsSource whose every read fails with one error, for a policy whose
// own source cannot be built (its Secret cannot be read): its passes fail closed with that
// error as the reason.
#pragma once

#include <vector>

#include "core/error.h"
#include "metrics/metrics_source.h"

namespace attune::metrics {

class UnavailableSource final : public MetricsSource {
 public:
  explicit UnavailableSource(Error error) : error_(std::move(error)) {}
  const Error& error() const { return error_; }

  Result<std::vector<ContainerSeries>> cpuUsage(const Scope&, const Range&) override {
    return fail();
  }
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope&, const Range&) override {
    return fail();
  }
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope&, const Range&) override {
    return fail();
  }
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope&, const Range&) override {
    return fail();
  }
  Result<std::vector<OomKill>> oomKills(const Scope&, const Range&) override { return fail(); }
  Result<std::vector<RestartCount>> restartCounts(const Scope&, Time) override { return fail(); }
  Result<std::vector<ContainerResourceValues>> resources(const Scope&, Time) override {
    return fail();
  }
  Result<std::vector<PodOwner>> podOwners(const Scope&, Time) override { return fail(); }
  Result<std::vector<NodeSeries>> nodeLoad(const Range&) override { return fail(); }
  Result<std::vector<NodeCapacity>> nodeCapacity(Time) override { return fail(); }

 private:
  std::unexpected<Error> fail() const { return std::unexpected(error_); }

  Error error_;
};

}  // namespace attune::metrics
