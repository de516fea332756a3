// The fault injector's decisions (deterministic per seed, at the configured rate, only kinds
// that apply to the request) and the fault-injecting ClusterApi: what a fault looks like to the
// caller and whether the inner cluster saw the write (before / after semantics).
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "cluster/pod_builder.h"
#include "core/clock.h"
#include "sim/cluster/cluster.h"
#include "sim/faults/fault_cluster_api.h"
#include "sim/faults/fault_injector.h"

namespace attune::sim {
namespace {

constexpr std::array<RequestKind, 4> kRequestKinds = {
    RequestKind::kRead, RequestKind::kWatch, RequestKind::kWrite, RequestKind::kConditionalWrite};

std::vector<FaultKind> decide(FaultOptions options, int n) {
  FaultInjector injector(std::move(options));
  std::vector<FaultKind> out;
  for (int i = 0; i < n; ++i) out.push_back(injector.next(kRequestKinds[i % 4]));
  return out;
}

TEST(FaultInjectorTest, TheSameSeedGivesTheSameFaults) {
  const auto a = decide({.rate = 0.2, .seed = 7}, 2000);
  EXPECT_EQ(a, decide({.rate = 0.2, .seed = 7}, 2000));
  EXPECT_NE(a, decide({.rate = 0.2, .seed = 8}, 2000));
}

TEST(FaultInjectorTest, TheRateIsRespectedOverManyRequests) {
  for (double rate : {0.1, 0.2, 0.5}) {
    FaultInjector injector({.rate = rate, .seed = 3});
    for (int i = 0; i < 20000; ++i) injector.next(RequestKind::kWrite);
    EXPECT_EQ(injector.requests(), 20000u);
    const double observed = static_cast<double>(injector.injected()) / 20000.0;
    EXPECT_NEAR(observed, rate, 0.015) << "rate " << rate;
  }
  FaultInjector never({.rate = 0.0, .seed = 3});
  FaultInjector always({.rate = 1.0, .seed = 3});
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(never.next(RequestKind::kRead), FaultKind::kNone);
    EXPECT_NE(always.next(RequestKind::kRead), FaultKind::kNone);
  }
}

TEST(FaultInjectorTest, OnlyKindsThatApplyToTheRequestAreInjected) {
  std::map<RequestKind, std::set<FaultKind>> seen;
  FaultInjector injector({.rate = 1.0, .seed = 11});
  for (int i = 0; i < 4000; ++i) {
    const RequestKind kind = kRequestKinds[i % 4];
    seen[kind].insert(injector.next(kind));
  }
  using F = FaultKind;
  EXPECT_EQ(seen[RequestKind::kRead], (std::set<F>{F::kTimeout, F::kThrottled, F::kServerError}));
  EXPECT_EQ(seen[RequestKind::kWatch], (std::set<F>{F::kTimeout, F::kThrottled, F::kServerError,
                                                    F::kWatchDropped, F::kWatchGone}));
  EXPECT_EQ(seen[RequestKind::kWrite],
            (std::set<F>{F::kTimeout, F::kThrottled, F::kServerError, F::kResponseLost}));
  EXPECT_EQ(
      seen[RequestKind::kConditionalWrite],
      (std::set<F>{F::kConflict, F::kTimeout, F::kThrottled, F::kServerError, F::kResponseLost}));
  for (F f : allFaultKinds()) EXPECT_GT(injector.injected(f), 0u) << toString(f);
}

TEST(FaultInjectorTest, DisabledKindsAreNeverInjected) {
  FaultInjector injector({.rate = 1.0, .seed = 5, .kinds = {FaultKind::kConflict}});
  EXPECT_EQ(injector.next(RequestKind::kRead), FaultKind::kNone) << "no enabled kind applies";
  EXPECT_EQ(injector.next(RequestKind::kWrite), FaultKind::kNone);
  EXPECT_EQ(injector.next(RequestKind::kConditionalWrite), FaultKind::kConflict);
  injector.setRate(0);
  EXPECT_EQ(injector.next(RequestKind::kConditionalWrite), FaultKind::kNone);
  EXPECT_EQ(injector.requests(), 4u);
  EXPECT_EQ(injector.injected(), 1u);
}

TEST(FaultInjectorTest, NamesRoundTrip) {
  for (FaultKind f : allFaultKinds()) EXPECT_EQ(parseFaultKind(toString(f)), f);
  EXPECT_EQ(parseFaultKind("none"), FaultKind::kNone);
  EXPECT_EQ(parseFaultKind("bogus"), std::nullopt);
  EXPECT_EQ(httpStatusOf(FaultKind::kThrottled), 429);
  EXPECT_EQ(httpStatusOf(FaultKind::kWatchGone), 410);
  EXPECT_EQ(httpStatusOf(FaultKind::kConflict), 409);
}

TEST(FaultInjectorTest, ListsTakeTheNamesAndTheEarlierServerNames) {
  using F = FaultKind;
  const F some[] = {F::kThrottled, F::kServerError, F::kTimeout, F::kWatchGone};
  EXPECT_EQ(parseFaultKinds("throttled, server-error", some),
            (std::set<F>{F::kThrottled, F::kServerError}));
  EXPECT_EQ(parseFaultKinds("throttle,error,reset,gone", some),
            (std::set<F>(std::begin(some), std::end(some))));
  EXPECT_EQ(parseFaultKinds("all", some)->size(), 4u);
  EXPECT_EQ(parseFaultKinds("conflict", some).error().field, "faults") << "not allowed";
  EXPECT_EQ(parseFaultKinds("boom", some).error().field, "faults");
}

class FaultClusterApiTest : public ::testing::Test {
 protected:
  FaultClusterApiTest() { EXPECT_TRUE(state_.createPod(testing::guaranteedPod())); }

  // Resizes team/web's container to 750m / 384Mi through `api`.
  static Result<api::Pod> resizeWeb(api::ClusterApi& api) {
    const std::vector<api::ContainerResize> c = {
        {"app", testing::resources("750m", "384Mi", "750m", "384Mi")}};
    return api.resizePod("team", "web", c);
  }
  api::ResourceRequirements webResources() {
    return cluster_.getPod("team", "web")->spec.containers.at(0).resources;
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(FaultClusterApiTest, WithoutFaultsEveryCallIsForwarded) {
  FaultClusterApi faults(cluster_, {.rate = 0.0});
  EXPECT_EQ(faults.getPod("team", "web"), cluster_.getPod("team", "web"));
  auto resized = resizeWeb(faults);
  ASSERT_TRUE(resized) << resized.error().toString();
  EXPECT_EQ(*resized, *cluster_.getPod("team", "web"));
  ASSERT_EQ(faults.writes().size(), 1u);
  EXPECT_TRUE(faults.writes()[0].appliedByInner);
  EXPECT_EQ(faults.writes()[0].resize.size(), 1u);
  EXPECT_EQ(faults.appliedWrites("resizePod", "team", "web"), 1u);
  EXPECT_EQ(faults.injector().requests(), 2u);
}

TEST_F(FaultClusterApiTest, AFaultBeforeTheWriteAppliesNothing) {
  for (FaultKind f : {FaultKind::kTimeout, FaultKind::kThrottled, FaultKind::kServerError}) {
    FaultClusterApi faults(cluster_, {.rate = 1.0, .kinds = {f}});
    const api::ResourceRequirements before = webResources();
    auto resized = resizeWeb(faults);
    ASSERT_FALSE(resized) << toString(f);
    EXPECT_EQ(resized.error().code, ErrorCode::kUnavailable);
    EXPECT_EQ(webResources(), before) << toString(f);
    ASSERT_EQ(faults.writes().size(), 1u);
    EXPECT_EQ(faults.writes()[0].fault, f);
    EXPECT_FALSE(faults.writes()[0].reachedInner);
    EXPECT_EQ(faults.appliedWrites("resizePod", "team", "web"), 0u);
    EXPECT_EQ(faults.injector().injected(f), 1u);
  }
  FaultClusterApi throttled(cluster_, {.rate = 1.0, .kinds = {FaultKind::kThrottled}});
  auto pod = throttled.getPod("team", "web");
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(pod.error().message.find("429"), std::string::npos) << pod.error().message;
}

TEST_F(FaultClusterApiTest, ALostResponseHidesAWriteThatWasApplied) {
  FaultClusterApi faults(cluster_, {.rate = 1.0, .kinds = {FaultKind::kResponseLost}});
  auto resized = resizeWeb(faults);
  ASSERT_FALSE(resized);
  EXPECT_EQ(resized.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(webResources(), testing::resources("750m", "384Mi", "750m", "384Mi"))
      << "the inner cluster applied the resize";
  ASSERT_EQ(faults.writes().size(), 1u);
  EXPECT_EQ(faults.writes()[0].fault, FaultKind::kResponseLost);
  EXPECT_TRUE(faults.writes()[0].appliedByInner);
  EXPECT_EQ(faults.appliedWrites("resizePod", "team", "web"), 1u);

  auto patched =
      faults.patchPodAnnotations("team", "web", {{"example.com/k", std::string("v")}}, "");
  ASSERT_FALSE(patched);
  EXPECT_EQ(cluster_.getPod("team", "web")->metadata.annotations.at("example.com/k"), "v");
}

TEST_F(FaultClusterApiTest, ConflictsOnlyHitWritesWithAPrecondition) {
  FaultClusterApi faults(cluster_, {.rate = 1.0, .kinds = {FaultKind::kConflict}});
  const std::string rv = cluster_.getPod("team", "web")->metadata.resourceVersion;
  auto conditional =
      faults.patchPodAnnotations("team", "web", {{"example.com/k", std::string("a")}}, rv);
  ASSERT_FALSE(conditional);
  EXPECT_EQ(conditional.error().code, ErrorCode::kConflict);
  EXPECT_FALSE(cluster_.getPod("team", "web")->metadata.annotations.contains("example.com/k"));
  auto unconditional =
      faults.patchPodAnnotations("team", "web", {{"example.com/k", std::string("b")}}, "");
  ASSERT_TRUE(unconditional) << unconditional.error().toString();
  EXPECT_EQ(unconditional->annotations.at("example.com/k"), "b");
  EXPECT_EQ(faults.injector().injected(FaultKind::kConflict), 1u);
}

TEST_F(FaultClusterApiTest, WatchesAreDroppedOrGone) {
  FaultClusterApi dropped(cluster_, {.rate = 1.0, .kinds = {FaultKind::kWatchDropped}});
  auto a = dropped.watchPods({}, "");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code, ErrorCode::kUnavailable);
  FaultClusterApi gone(cluster_, {.rate = 1.0, .kinds = {FaultKind::kWatchGone}});
  auto b = gone.watchPods({}, "");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code, ErrorCode::kConflict);
  EXPECT_EQ(b.error().field, "resourceVersion");
  EXPECT_TRUE(gone.listPods({})) << "watch faults never hit reads";
}

}  // namespace
}  // namespace attune::sim
