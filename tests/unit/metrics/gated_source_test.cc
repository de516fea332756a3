#include "metrics/gated_source.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace attune::metrics {
namespace {

// Answers every read with nothing, counting the reads; a parallel copy shares the count.
class CountingSource final : public MetricsSource {
 public:
  explicit CountingSource(std::shared_ptr<int> reads = std::make_shared<int>(0))
      : reads_(std::move(reads)) {}
  int reads() const { return *reads_; }

  Result<std::vector<ContainerSeries>> cpuUsage(const Scope&, const Range&) override {
    return counted<ContainerSeries>();
  }
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope&, const Range&) override {
    return counted<ContainerSeries>();
  }
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope&, const Range&) override {
    return counted<ContainerSeries>();
  }
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope&, const Range&) override {
    return counted<ContainerSeries>();
  }
  Result<std::vector<OomKill>> oomKills(const Scope&, const Range&) override {
    return counted<OomKill>();
  }
  Result<std::vector<RestartCount>> restartCounts(const Scope&, Time) override {
    return counted<RestartCount>();
  }
  Result<std::vector<ContainerResourceValues>> resources(const Scope&, Time) override {
    return counted<ContainerResourceValues>();
  }
  Result<std::vector<PodOwner>> podOwners(const Scope&, Time) override {
    return counted<PodOwner>();
  }
  Result<std::vector<NodeSeries>> nodeLoad(const Range&) override { return counted<NodeSeries>(); }
  Result<std::vector<NodeCapacity>> nodeCapacity(Time) override { return counted<NodeCapacity>(); }
  std::unique_ptr<MetricsSource> parallelCopy() const override {
    return std::make_unique<CountingSource>(reads_);
  }

 private:
  template <typename T>
  Result<std::vector<T>> counted() {
    ++*reads_;
    return std::vector<T>{};
  }
  std::shared_ptr<int> reads_;
};

// Every read of the source, in one list: each must pass or fail alike.
std::vector<bool> readAll(MetricsSource& source) {
  const Scope scope{{"shop"}, {}};
  const Range range{Time{}, Time{} + std::chrono::minutes(5), std::chrono::minutes(1)};
  return {source.cpuUsage(scope, range).has_value(),
          source.cpuPressureWaiting(scope, range).has_value(),
          source.memoryWorkingSet(scope, range).has_value(),
          source.cpuThrottleRatio(scope, range).has_value(),
          source.oomKills(scope, range).has_value(),
          source.restartCounts(scope, Time{}).has_value(),
          source.resources(scope, Time{}).has_value(),
          source.podOwners(scope, Time{}).has_value(),
          source.nodeLoad(range).has_value(),
          source.nodeCapacity(Time{}).has_value()};
}

// Open, every read reaches the backend; closed, every read fails with the closing error and
// none reaches it, and there is no parallel copy to read it through; opened again, reads pass.
TEST(GatedSourceTest, ClosedFailsEveryReadWithoutReachingTheBackend) {
  CountingSource backend;
  GatedSource gated(backend);
  EXPECT_TRUE(gated.isOpen());
  EXPECT_EQ(readAll(gated), std::vector<bool>(10, true));
  EXPECT_EQ(backend.reads(), 10);
  auto copy = gated.parallelCopy();
  ASSERT_NE(copy, nullptr);
  (void)copy->cpuUsage(Scope{}, Range{});
  EXPECT_EQ(backend.reads(), 11);

  gated.close(Error{ErrorCode::kUnavailable, "prometheus: connection refused"});
  EXPECT_FALSE(gated.isOpen());
  EXPECT_EQ(readAll(gated), std::vector<bool>(10, false));
  EXPECT_EQ(backend.reads(), 11);
  auto failed = gated.memoryWorkingSet(Scope{}, Range{});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(failed.error().message, "prometheus: connection refused");
  EXPECT_EQ(gated.parallelCopy(), nullptr);

  gated.open();
  EXPECT_EQ(readAll(gated), std::vector<bool>(10, true));
  EXPECT_EQ(backend.reads(), 21);
}

}  // namespace
}  // namespace attune::metrics
