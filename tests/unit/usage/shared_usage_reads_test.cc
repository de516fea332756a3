// SharedUsageReads: readers of one namespace share one read per metric, each gets what its own
// read would have returned (its range, its containers, never an excluded one), a failed read
// fails every reader, and only what is missing is read.
#include "usage/shared_usage_reads.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace attune::usage {
namespace {

using metrics::ContainerId;
using metrics::ContainerSeries;
using metrics::Range;
using metrics::Scope;
using std::chrono::hours;
using std::chrono::minutes;

const Time kT0 = Time(std::chrono::seconds(1714521600));  // 2024-05-01T00:00:00Z, on the grid
const Duration kStep = minutes(5);

// A namespace "shop" of three containers whose values depend only on the container and the time
// (as a range query evaluates each step on its own), and one OOM kill. Counts and records every
// query.
class FakeSource final : public metrics::MetricsSource {
 public:
  struct Query {
    std::string metric;
    Scope scope;
    Range range;
  };
  std::vector<Query> queries;
  bool failing = false;
  Time oomAt = kT0 + hours(20);
  // Set: the source offers parallel copies, and it and its copies count their queries here.
  struct Parallel {
    std::mutex mutex;
    std::size_t copies = 0;
    std::size_t queries = 0;
    bool held = false;  // the copies' queries wait until it is cleared (release())
    std::condition_variable released;
    std::condition_variable queried;  // a query counted
    // Waits until `n` queries were counted.
    void awaitQueries(std::size_t n) {
      std::unique_lock lock(mutex);
      queried.wait(lock, [&] { return queries >= n; });
    }
    void release() {
      {
        const std::lock_guard lock(mutex);
        held = false;
      }
      released.notify_all();
    }
  };
  std::shared_ptr<Parallel> parallel;
  bool copy = false;  // made by parallelCopy()

  std::unique_ptr<metrics::MetricsSource> parallelCopy() const override {
    if (!parallel) return nullptr;
    auto copy = std::make_unique<FakeSource>();
    copy->failing = failing;
    copy->oomAt = oomAt;
    copy->parallel = parallel;
    copy->copy = true;
    const std::lock_guard lock(parallel->mutex);
    ++parallel->copies;
    return copy;
  }

  Result<std::vector<ContainerSeries>> cpuUsage(const Scope& s, const Range& r) override {
    return series("cpu", s, r, 1);
  }
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope& s, const Range& r) override {
    return series("psi", s, r, 0.01);
  }
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope& s, const Range& r) override {
    return series("memory", s, r, 1e6);
  }
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope& s, const Range& r) override {
    return series("throttle", s, r, 0.001);
  }
  Result<std::vector<metrics::OomKill>> oomKills(const Scope& s, const Range& r) override {
    record("oom", s, r);
    if (failing) return fail(ErrorCode::kUnavailable, "prometheus down");
    std::vector<metrics::OomKill> out;
    const ContainerId db{"shop", "db-0", "app"};
    // Timed on the step grid, as the Prometheus backend reports them.
    for (Time t = r.start; t <= r.end; t += r.step) {
      if (t == oomAt && s.includes(db)) out.push_back({db, t, Bytes(1 << 30)});
    }
    return out;
  }
  Result<std::vector<metrics::RestartCount>> restartCounts(const Scope&, Time) override {
    return std::vector<metrics::RestartCount>{};
  }
  Result<std::vector<metrics::ContainerResourceValues>> resources(const Scope&, Time) override {
    return std::vector<metrics::ContainerResourceValues>{};
  }
  Result<std::vector<metrics::PodOwner>> podOwners(const Scope&, Time) override {
    return std::vector<metrics::PodOwner>{};
  }
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const Range&) override {
    return std::vector<metrics::NodeSeries>{};
  }
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time) override {
    return std::vector<metrics::NodeCapacity>{};
  }

  std::size_t count(const std::string& metric) const {
    return std::ranges::count_if(queries, [&](const Query& q) { return q.metric == metric; });
  }

 private:
  void record(const std::string& metric, const Scope& s, const Range& r) {
    queries.push_back({metric, s, r});
    if (!parallel) return;
    std::unique_lock lock(parallel->mutex);
    ++parallel->queries;
    parallel->queried.notify_all();
    if (copy) parallel->released.wait(lock, [&] { return !parallel->held; });
  }

  Result<std::vector<ContainerSeries>> series(const std::string& metric, const Scope& s,
                                              const Range& r, double scale) {
    record(metric, s, r);
    if (failing) return fail(ErrorCode::kUnavailable, "prometheus down");
    std::vector<ContainerSeries> out;
    const std::vector<ContainerId> all = {
        {"shop", "web-a", "app"},   {"shop", "web-a", "istio-proxy"}, {"shop", "web-b", "app"},
        {"shop", "web-b", "debug"}, {"shop", "db-0", "app"},          {"other", "x-0", "app"}};
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!s.includes(all[i])) continue;
      ContainerSeries cs{.id = all[i]};
      for (Time t = r.start; t <= r.end; t += r.step) {
        const double minute = std::chrono::duration<double>(t - kT0).count() / 60;
        cs.points.push_back({t, scale * (static_cast<double>(i) + 1 + minute / 1000)});
      }
      if (!cs.points.empty()) out.push_back(std::move(cs));
    }
    return out;
  }
};

Scope shop(std::vector<std::string> excluded = {"istio-proxy"}) {
  return Scope{.namespaces = {"shop"}, .excludedContainers = std::move(excluded)};
}

// The reading as a comparable text: every series with its points, every kill.
std::string dump(const UsageReading& r) {
  std::string out;
  const auto add = [&](const char* what, const std::vector<ContainerSeries>& all) {
    std::vector<std::string> lines;
    for (const auto& s : all) {
      std::string line = std::string(what) + " " + metrics::toString(s.id) + ":";
      for (const auto& p : s.points) {
        line +=
            " " + std::to_string(p.time.time_since_epoch().count()) + "=" + std::to_string(p.value);
      }
      lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    for (const auto& l : lines) out += l + "\n";
  };
  add("cpu", r.cpu);
  add("psi", r.psi);
  add("memory", r.memory);
  for (const auto& k : r.oomKills) {
    out += "oom " + metrics::toString(k.id) + " " +
           std::to_string(k.time.time_since_epoch().count()) + "\n";
  }
  return out;
}

// What a reader's own read returns.
UsageReading alone(const Scope& scope, const ReadRange& range) {
  FakeSource own;
  return *readUsage(own, scope, range);
}

TEST(SharedUsageReadsTest, ReadersOfOneNamespaceShareOneReadPerMetric) {
  FakeSource source;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(24), kStep);
  for (int i = 0; i < 5; ++i) reads.expect(source, shop(), range);
  for (int i = 0; i < 5; ++i) {
    auto reading = reads.read(source, shop(), range);
    ASSERT_TRUE(reading) << reading.error().toString();
    EXPECT_EQ(dump(*reading), dump(alone(shop(), range)));
    EXPECT_FALSE(reading->cpu.empty());
    EXPECT_EQ(reading->oomKills.size(), 1u);
  }
  // One query per metric for the five readers, not five.
  EXPECT_EQ(source.queries.size(), 4u);
  for (const char* metric : {"cpu", "psi", "memory", "oom"}) EXPECT_EQ(source.count(metric), 1u);
  EXPECT_EQ(reads.sourceReads(), 1u);
  EXPECT_EQ(reads.readsServed(), 5u);
}

TEST(SharedUsageReadsTest, ANewReaderGetsItsWholeWindowFromTheSameReadAsTheUpToDateOnes) {
  FakeSource source;
  SharedUsageReads reads;
  const Time end = kT0 + hours(24);
  const ReadRange upToDate = readRange(end, end, kStep);  // one new step
  const ReadRange fresh = readRange(end - hours(24), end, kStep);
  reads.expect(source, shop(), upToDate);
  reads.expect(source, shop(), fresh);
  reads.expect(source, shop(), upToDate);
  auto a = reads.read(source, shop(), upToDate);
  auto b = reads.read(source, shop(), fresh);
  auto c = reads.read(source, shop(), upToDate);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(dump(*a), dump(alone(shop(), upToDate)));
  EXPECT_EQ(dump(*b), dump(alone(shop(), fresh)));
  EXPECT_EQ(dump(*c), dump(alone(shop(), upToDate)));
  ASSERT_EQ(a->cpu.front().points.size(), 1u);  // the up-to-date readers get their one step
  EXPECT_TRUE(a->oomKills.empty());
  // One query per metric, over the union of the ranges.
  ASSERT_EQ(source.count("cpu"), 1u);
  EXPECT_EQ(source.queries.front().range.start, end - hours(24));
  EXPECT_EQ(source.queries.front().range.end, end);
}

TEST(SharedUsageReadsTest, AnExcludedContainerIsNeverReturnedToTheReaderExcludingIt) {
  FakeSource source;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  const Scope withoutDebug = shop({"istio-proxy", "debug"});
  const Scope withDebug = shop({"istio-proxy"});
  reads.expect(source, withoutDebug, range);
  reads.expect(source, withDebug, range);
  auto a = reads.read(source, withoutDebug, range);
  auto b = reads.read(source, withDebug, range);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(dump(*a), dump(alone(withoutDebug, range)));
  EXPECT_EQ(dump(*b), dump(alone(withDebug, range)));
  for (const auto& s : a->memory) EXPECT_NE(s.id.container, "debug");
  EXPECT_TRUE(
      std::ranges::any_of(b->memory, [](const auto& s) { return s.id.container == "debug"; }));
  // The shared query left out only what both exclude.
  EXPECT_EQ(source.count("cpu"), 1u);
  EXPECT_EQ(source.queries.front().scope.excludedContainers,
            std::vector<std::string>{"istio-proxy"});
  for (const auto& s : b->memory) EXPECT_NE(s.id.container, "istio-proxy");
}

TEST(SharedUsageReadsTest, AReaderTakesOnlyTheContainersItWants) {
  FakeSource source;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  reads.expect(source, shop(), range);
  auto web = reads.read(source, shop(), range,
                        [](const ContainerId& id) { return id.pod.starts_with("web-"); });
  ASSERT_TRUE(web);
  ASSERT_FALSE(web->cpu.empty());
  for (const auto& s : web->cpu) EXPECT_TRUE(s.id.pod.starts_with("web-"));
  EXPECT_TRUE(web->oomKills.empty());  // db-0's kill is not its
}

// A reader naming its pods gets, looked up pod by pod, what the filter alone gives it.
TEST(SharedUsageReadsTest, AReaderNamingItsPodsGetsWhatItsFilterAloneGives) {
  FakeSource source;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  const ContainerFilter web = [](const ContainerId& id) { return id.pod.starts_with("web-"); };
  const std::vector<std::string_view> webPods{"web-a", "web-b"};
  const std::vector<std::string_view> onlyB{"web-b", "x-0"};  // x-0 is in another namespace
  for (int i = 0; i < 3; ++i) reads.expect(source, shop(), range);
  auto byFilter = reads.read(source, shop(), range, web);
  auto byPods = reads.read(source, shop(), range, web, &webPods);
  auto b = reads.read(source, shop(), range, web, &onlyB);
  ASSERT_TRUE(byFilter && byPods && b);
  EXPECT_EQ(source.count("cpu"), 1u);
  ASSERT_EQ(byFilter->cpu.size(), 3u);  // web-a/app, web-b/app, web-b/debug (not istio-proxy)
  EXPECT_EQ(dump(*byPods), dump(*byFilter));
  ASSERT_EQ(b->cpu.size(), 2u);
  for (const auto& series : b->cpu) EXPECT_EQ(series.id.pod, "web-b");
}

// use() gives each reader its part where it lies in the shared reading: what read() copies out,
// the same points seen by every reader, and an error (no call) when the read fails.
TEST(SharedUsageReadsTest, UseGivesEachReaderItsPartInPlace) {
  FakeSource source;
  SharedUsageReads reads;
  const Time end = kT0 + hours(2);
  const ReadRange whole = readRange(kT0, end, kStep);
  const ReadRange last = readRange(end, end, kStep);
  const ContainerFilter web = [](const ContainerId& id) { return id.pod.starts_with("web-"); };
  reads.expect(source, shop(), whole);
  reads.expect(source, shop(), last);
  reads.expect(source, shop(), whole);
  std::vector<const metrics::Point*> seen;  // the last point each reader saw of web-a/app's cpu
  const auto user = [&](const ReadRange& range, const ContainerFilter& wanted) {
    return [&, range, wanted](const UsageView& view) {
      UsageReading copy;
      for (const auto& [all, into] : {std::pair{&view.cpu, &copy.cpu},
                                      {&view.psi, &copy.psi},
                                      {&view.memory, &copy.memory}}) {
        for (const SeriesView& s : *all) {
          into->push_back({*s.id, {s.points.begin(), s.points.end()}});
          if (all == &view.cpu && *s.id == ContainerId{"shop", "web-a", "app"}) {
            seen.push_back(&s.points.back());
          }
        }
      }
      copy.oomKills = view.oomKills;
      auto own = alone(shop(), range);
      if (wanted) {
        for (auto* series : {&own.cpu, &own.psi, &own.memory}) {
          std::erase_if(*series, [&](const auto& s) { return !wanted(s.id); });
        }
        std::erase_if(own.oomKills, [&](const auto& k) { return !wanted(k.id); });
      }
      EXPECT_EQ(dump(copy), dump(own));
    };
  };
  ASSERT_TRUE(reads.use(source, shop(), whole, user(whole, {})));
  ASSERT_TRUE(reads.use(source, shop(), last, user(last, web), web));
  ASSERT_TRUE(reads.use(source, shop(), whole, user(whole, web), web));
  EXPECT_EQ(source.count("cpu"), 1u);
  // Not copied: the three readers saw web-a/app's last point at one address.
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(seen[1], seen[2]);

  FakeSource down;
  down.failing = true;
  reads.expect(down, shop(), whole);
  bool called = false;
  auto failed = reads.use(down, shop(), whole, [&](const UsageView&) { called = true; });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(called);
}

TEST(SharedUsageReadsTest, AFailedReadFailsEveryReaderWithTheSameError) {
  FakeSource source;
  source.failing = true;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  for (int i = 0; i < 3; ++i) reads.expect(source, shop(), range);
  std::vector<std::string> errors;
  for (int i = 0; i < 3; ++i) {
    auto reading = reads.read(source, shop(), range);
    ASSERT_FALSE(reading);
    EXPECT_EQ(reading.error().code, ErrorCode::kUnavailable);
    errors.push_back(reading.error().toString());
  }
  EXPECT_EQ(errors[0], errors[1]);
  EXPECT_EQ(errors[0], errors[2]);
  EXPECT_NE(errors[0].find("prometheus down"), std::string::npos);
  // The first query failed: the rest of the read and every other reader's were not sent.
  EXPECT_EQ(source.queries.size(), 1u);
}

TEST(SharedUsageReadsTest, ARangeBeyondTheReadingReadsOnlyWhatIsMissing) {
  FakeSource source;
  SharedUsageReads reads;
  const Time end = kT0 + hours(24);
  const ReadRange first = readRange(end - hours(1), end, kStep);
  reads.expect(source, shop(), first);
  reads.expect(source, shop(), first);
  ASSERT_TRUE(reads.read(source, shop(), first));
  // The second reader's clock crossed a step, and it wants the whole day: only the hours before
  // and the step after are read.
  const ReadRange wider = readRange(end - hours(24), end + kStep, kStep);
  auto reading = reads.read(source, shop(), wider);
  ASSERT_TRUE(reading);
  EXPECT_EQ(dump(*reading), dump(alone(shop(), wider)));
  std::vector<std::pair<Time, Time>> cpu;
  for (const auto& q : source.queries) {
    if (q.metric == "cpu") cpu.emplace_back(q.range.start, q.range.end);
  }
  const std::vector<std::pair<Time, Time>> expected = {
      {end - hours(1), end}, {end - hours(24), end - hours(1) - kStep}, {end + kStep, end + kStep}};
  EXPECT_EQ(cpu, expected);
}

TEST(SharedUsageReadsTest, AReadingIsDroppedOnceEveryAnnouncedReaderHasIt) {
  FakeSource source;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  reads.expect(source, shop(), range);
  ASSERT_TRUE(reads.read(source, shop(), range));
  ASSERT_TRUE(reads.read(source, shop(), range));  // not announced: read again
  EXPECT_EQ(reads.sourceReads(), 2u);
}

TEST(SharedUsageReadsTest, ScopesOfSeveralNamespacesAndOffGridRangesAreReadAlone) {
  FakeSource source;
  SharedUsageReads reads;
  const Scope two{.namespaces = {"shop", "other"}, .excludedContainers = {}};
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  reads.expect(source, two, range);
  reads.expect(source, two, range);
  ASSERT_TRUE(reads.read(source, two, range));
  ASSERT_TRUE(reads.read(source, two, range));
  EXPECT_EQ(reads.sourceReads(), 2u);
  const ReadRange offGrid = readRange(kT0, kT0 + hours(1) + minutes(2), kStep);
  reads.expect(source, shop(), offGrid);
  auto reading = reads.read(source, shop(), offGrid);
  ASSERT_TRUE(reading);
  EXPECT_EQ(dump(*reading), dump(alone(shop(), offGrid)));
  EXPECT_EQ(reads.sourceReads(), 3u);
}

TEST(SharedUsageReadsTest, OtherStepsAndSourcesAreReadApart) {
  FakeSource a, b;
  SharedUsageReads reads;
  const ReadRange five = readRange(kT0, kT0 + hours(1), kStep);
  const ReadRange one = readRange(kT0, kT0 + hours(1), minutes(1));
  reads.expect(a, shop(), five);
  reads.expect(a, shop(), one);
  reads.expect(b, shop(), five);
  ASSERT_TRUE(reads.read(a, shop(), five));
  auto fine = reads.read(a, shop(), one);
  ASSERT_TRUE(fine);
  EXPECT_EQ(dump(*fine), dump(alone(shop(), one)));
  ASSERT_TRUE(reads.read(b, shop(), five));
  EXPECT_EQ(a.count("cpu"), 2u);
  EXPECT_EQ(b.count("cpu"), 1u);
}

TEST(SharedUsageReadsTest, ThrottleRatiosAreReadOncePerNamespaceRangeAndExclusions) {
  FakeSource source;
  SharedUsageReads reads;
  const Range at{kT0 + hours(1), kT0 + hours(1), minutes(5)};
  auto a = reads.throttleRatio(source, shop(), at);
  auto b = reads.throttleRatio(source, shop(), at);
  ASSERT_TRUE(a && b);
  ASSERT_FALSE(a->empty());
  EXPECT_EQ(a->size(), b->size());
  EXPECT_EQ(source.count("throttle"), 1u);
  // Other exclusions, another time: their own queries, and never an excluded container.
  auto c = reads.throttleRatio(source, shop({"istio-proxy", "debug"}), at);
  ASSERT_TRUE(c);
  for (const auto& s : *c) EXPECT_NE(s.id.container, "debug");
  ASSERT_TRUE(reads.throttleRatio(source, shop(), Range{at.start + kStep, at.end + kStep, kStep}));
  EXPECT_EQ(source.count("throttle"), 3u);
  // A failure is the answer for the rest of the pass.
  FakeSource down;
  down.failing = true;
  EXPECT_FALSE(reads.throttleRatio(down, shop(), at));
  EXPECT_FALSE(reads.throttleRatio(down, shop(), at));
  EXPECT_EQ(down.count("throttle"), 1u);
}

}  // namespace
}  // namespace attune::usage

namespace attune::usage {
namespace {

TEST(SharedUsageReadsTest, PrefetchMakesEachFirstReadOnceAndReadersGetWhatTheirOwnReadGives) {
  FakeSource source;
  source.parallel = std::make_shared<FakeSource::Parallel>();
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(6), kStep);
  const ReadRange later = readRange(kT0 + hours(1), kT0 + hours(6), kStep);
  const std::vector<std::string> namespaces = {"shop", "other", "empty"};
  for (const std::string& ns : namespaces) {
    reads.expect(source, Scope{.namespaces = {ns}}, range);
    reads.expect(source, Scope{.namespaces = {ns}}, later);
  }
  reads.prefetch(4);
  // The source itself stays free for the caller while the reads are made.
  ASSERT_TRUE(reads.throttleRatio(source, shop(), Range{kT0, kT0, kStep}));
  EXPECT_EQ(source.count("throttle"), 1u);
  reads.waitPrefetch();
  // One read per namespace, on three copies of the source (three namespaces, four allowed),
  // four queries each; none through the source itself.
  EXPECT_EQ(source.parallel->copies, 3u);
  EXPECT_EQ(source.parallel->queries, 13u);  // and the throttle ratio's
  EXPECT_EQ(source.queries.size(), 1u);
  EXPECT_EQ(reads.sourceReads(), 3u);
  for (const std::string& ns : namespaces) {
    for (const ReadRange& r : {range, later}) {
      const Scope scope{.namespaces = {ns}};
      auto reading = reads.read(source, scope, r);
      ASSERT_TRUE(reading) << reading.error().toString();
      EXPECT_EQ(dump(*reading), dump(alone(scope, r))) << ns;
    }
  }
  // The readers took their parts of the readings made: nothing more was sent.
  EXPECT_EQ(source.parallel->queries, 13u);
  EXPECT_EQ(reads.sourceReads(), 3u);
}

TEST(SharedUsageReadsTest, PrefetchLeavesSourcesWithoutCopiesAndOneAtATimeToTheFirstReader) {
  FakeSource plain;
  FakeSource copyable;
  copyable.parallel = std::make_shared<FakeSource::Parallel>();
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  reads.expect(plain, shop(), range);
  reads.expect(copyable, shop(), range);
  reads.prefetch(1);
  reads.waitPrefetch();
  EXPECT_EQ(copyable.parallel->copies, 0u);
  EXPECT_EQ(copyable.parallel->queries, 0u);
  reads.prefetch(2);
  reads.waitPrefetch();
  // One copy for the one read of the source that has copies; the other is left to its reader.
  EXPECT_EQ(copyable.parallel->copies, 1u);
  EXPECT_EQ(copyable.parallel->queries, 4u);
  EXPECT_TRUE(plain.queries.empty());
  EXPECT_TRUE(copyable.queries.empty());
  ASSERT_TRUE(reads.read(plain, shop(), range));
  ASSERT_TRUE(reads.read(copyable, shop(), range));
  EXPECT_EQ(plain.queries.size(), 4u);
  EXPECT_EQ(copyable.parallel->queries, 4u);
}

// prefetch() queues behind the reads already queued (a caller announces one group while the
// one before is still being read), and a reader whose read is still queued makes it itself.
TEST(SharedUsageReadsTest, PrefetchesQueueBehindEachOtherAndAReaderTakesBackAQueuedRead) {
  FakeSource source;
  source.parallel = std::make_shared<FakeSource::Parallel>();
  source.parallel->held = true;  // the two copies' first reads wait
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(6), kStep);
  for (const char* ns : {"shop", "other", "third"}) {
    reads.expect(source, Scope{.namespaces = {ns}}, range);
  }
  reads.prefetch(2);
  // Queued in key order: "other" and "shop" are taken by the two threads and wait; "third"
  // cannot be taken before one of them is done, so its reader reads it through the source.
  const Scope third{.namespaces = {"third"}};
  auto thirdReading = reads.read(source, third, range);
  ASSERT_TRUE(thirdReading) << thirdReading.error().toString();
  EXPECT_EQ(dump(*thirdReading), dump(alone(third, range)));
  EXPECT_EQ(source.queries.size(), 4u);
  // The next group, announced and queued while the reads before it are still under way.
  reads.expect(source, Scope{.namespaces = {"fourth"}}, range);
  reads.prefetch(2);
  source.parallel->release();
  reads.waitPrefetch();
  for (const char* ns : {"shop", "other", "fourth"}) {
    const Scope scope{.namespaces = {ns}};
    auto reading = reads.read(source, scope, range);
    ASSERT_TRUE(reading) << reading.error().toString();
    EXPECT_EQ(dump(*reading), dump(alone(scope, range))) << ns;
  }
  EXPECT_EQ(source.parallel->copies, 2u);  // kept: the second prefetch made none
  EXPECT_EQ(source.queries.size(), 4u);    // "third" only
  EXPECT_EQ(reads.sourceReads(), 4u);
}

// A group announced while the group before it is being read gets a thread of its own: the one
// reading is busy (a pass whose groups hold one namespace each read one at a time otherwise).
TEST(SharedUsageReadsTest, AGroupPrefetchedWhileTheOneBeforeIsReadGetsAThreadOfItsOwn) {
  FakeSource source;
  source.parallel = std::make_shared<FakeSource::Parallel>();
  source.parallel->held = true;
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(6), kStep);
  reads.expect(source, shop(), range);
  reads.prefetch(2);
  source.parallel->awaitQueries(1);  // the first thread took "shop" and waits in its query
  EXPECT_EQ(source.parallel->copies, 1u);
  const Scope other{.namespaces = {"other"}};
  reads.expect(source, other, range);
  reads.prefetch(2);
  EXPECT_EQ(source.parallel->copies, 2u);  // "other" is read beside "shop", not behind it
  source.parallel->release();
  reads.waitPrefetch();
  for (const Scope& scope : {shop(), other}) {
    auto reading = reads.read(source, scope, range);
    ASSERT_TRUE(reading) << reading.error().toString();
    EXPECT_EQ(dump(*reading), dump(alone(scope, range)));
  }
  EXPECT_TRUE(source.queries.empty());  // every read made by the threads
  EXPECT_EQ(reads.sourceReads(), 2u);
}

TEST(SharedUsageReadsTest, APrefetchThatFailedFailsEveryReaderOfItsNamespace) {
  FakeSource source;
  source.failing = true;
  source.parallel = std::make_shared<FakeSource::Parallel>();
  SharedUsageReads reads;
  const ReadRange range = readRange(kT0, kT0 + hours(1), kStep);
  for (const char* ns : {"shop", "other"}) {
    for (int i = 0; i < 2; ++i) reads.expect(source, Scope{.namespaces = {ns}}, range);
  }
  reads.prefetch(2);
  reads.waitPrefetch();
  EXPECT_EQ(source.parallel->queries, 2u);  // each read stopped at its first query
  for (const char* ns : {"shop", "other"}) {
    for (int i = 0; i < 2; ++i) {
      auto reading = reads.read(source, Scope{.namespaces = {ns}}, range);
      ASSERT_FALSE(reading);
      EXPECT_NE(reading.error().message.find("prometheus down"), std::string::npos);
    }
  }
  EXPECT_EQ(source.parallel->queries, 2u);  // not retried within the pass
}

}  // namespace
}  // namespace attune::usage
