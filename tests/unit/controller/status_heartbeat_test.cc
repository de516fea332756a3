// A pass writes a policy's status only when something in it changed, or when the stored
// lastReconcileTime is ControllerOptions::statusHeartbeat old: a steady policy costs one status
// write per heartbeat, not one per pass, and its lastReconcileTime is never older than that plus
// a few passes (the heartbeat writes one pass may make are limited, so that they spread).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/forwarding_cluster_api.h"
#include "controller/policy_status.h"
#include "core/clock.h"
#include "core/units.h"
#include "scenario_harness.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// Counts the status writes the controller sends.
class StatusWrites final : public api::ForwardingClusterApi {
 public:
  StatusWrites(api::ClusterApi& inner, int& writes)
      : ForwardingClusterApi(inner), writes_(writes) {}
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override {
    ++writes_;
    return ForwardingClusterApi::updateAttunePolicyStatus(policy);
  }

 private:
  int& writes_;
};

struct SteadyHour {
  int writes = 0;                // status writes over the steady hour
  Duration oldest{};             // the oldest lastReconcileTime seen, minute by minute
  std::vector<Time> reconciled;  // the stored lastReconcileTime before, then every new one
  std::size_t passes = 0;        // the policy's passes over the steady hour
};

// One steady Deployment under a Recommend policy: once its recommendation has settled (the first
// hour), nothing in its status changes but the time. Then an hour is watched minute by minute.
SteadyHour steadyHour(Duration heartbeat) {
  SteadyHour run;
  int writes = 0;
  HarnessOptions options;
  options.controller.statusHeartbeat = heartbeat;
  options.wrapApi = [&writes](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<StatusWrites>(cluster, writes);
  };
  ScenarioHarness h(
      scenarioYaml(
          workloadYaml({.name = "web"}),
          policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"})),
      options);
  if (!h.usable()) return run;
  h.runMinutes(60);
  const std::uint64_t passesBefore = h.controller().passesOf("apps/web").value_or(0);
  writes = 0;
  if (auto before = h.policy("apps", "web").status.lastReconcileTime)
    run.reconciled.push_back(*before);
  for (int minute = 0; minute < 60; ++minute) {
    h.runMinutes(1);
    const api::AttunePolicy p = h.policy("apps", "web");
    if (!p.status.lastReconcileTime) continue;
    run.oldest = std::max(run.oldest, h.now() - *p.status.lastReconcileTime);
    if (run.reconciled.empty() || run.reconciled.back() != *p.status.lastReconcileTime) {
      run.reconciled.push_back(*p.status.lastReconcileTime);
    }
  }
  run.writes = writes;
  run.passes = h.controller().passesOf("apps/web").value_or(0) - passesBefore;
  return run;
}

TEST(StatusHeartbeatTest, ASteadyPolicyIsWrittenOncePerHeartbeatNotPerPass) {
  const SteadyHour run = steadyHour(5min);
  // A pass a minute: 60 passes, 12 heartbeats.
  EXPECT_GE(run.passes, 59u);
  EXPECT_GE(run.writes, 11);
  EXPECT_LE(run.writes, 13);
  EXPECT_EQ(run.reconciled.size(), static_cast<std::size_t>(run.writes) + 1);
  // Written when the stored time is 5 minutes old, by the first pass that finds it so: never
  // older than the heartbeat plus one pass.
  EXPECT_GE(run.oldest, 4min);
  EXPECT_LE(run.oldest, 6min);
  for (std::size_t i = 1; i < run.reconciled.size(); ++i) {
    EXPECT_GE(run.reconciled[i] - run.reconciled[i - 1], 5min) << i;
  }
}

TEST(StatusHeartbeatTest, AHeartbeatOfOnePassWritesEveryPass) {
  const SteadyHour run = steadyHour(1min);
  EXPECT_GE(run.passes, 59u);
  EXPECT_GE(run.writes, 59);
  EXPECT_LE(run.oldest, 1min);
}

TEST(StatusHeartbeatTest, AChangeIsWrittenAtOnceWhateverTheHeartbeat) {
  int writes = 0;
  HarnessOptions options;
  options.controller.statusHeartbeat = 24h;
  options.wrapApi = [&writes](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<StatusWrites>(cluster, writes);
  };
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web"}), policyYaml({.name = "web", .target = "web"})),
      options);
  ASSERT_TRUE(h.usable());
  // The Auto policy resizes once it has data: the resize history reaches the stored status in
  // the pass that made it, though its lastReconcileTime is minutes old.
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(ActionRecord::Kind::kResized).empty(); }, 60min));
  const Time resized = h.actions(ActionRecord::Kind::kResized).front().time;
  const api::AttunePolicy p = h.policy("apps", "web");
  ASSERT_FALSE(p.status.resizeHistory.empty());
  ASSERT_TRUE(p.status.lastReconcileTime.has_value());
  EXPECT_EQ(*p.status.lastReconcileTime, resized);
  EXPECT_GT(writes, 1);
}

// `policies` steady Recommend policies under a 5-minute heartbeat, their recommendations settled
// (the first hour), status writes counted; heartbeats held when `heartbeatsPerCall` is above 0.
struct SteadyPolicies {
  int writes = 0;
  std::unique_ptr<ScenarioHarness> h;
};
void settle(SteadyPolicies& run, int policies, std::size_t heartbeatsPerCall = 0) {
  HarnessOptions options;
  options.controller.statusHeartbeat = 5min;
  options.controller.heartbeatsPerCall = heartbeatsPerCall;
  options.wrapApi = [&run](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<StatusWrites>(cluster, run.writes);
  };
  std::string workloads;
  std::string yaml;
  for (int i = 0; i < policies; ++i) {
    const std::string name = "web-" + std::to_string(i);
    workloads += workloadYaml({.name = name});
    yaml += policyYaml({.name = name, .target = name, .updateStrategy = "{type: Recommend}"});
  }
  run.h = std::make_unique<ScenarioHarness>(
      scenarioYaml(workloads, yaml, {}, "{name: node, count: 2, cpu: \"16\", memory: 64Gi}"),
      options);
  if (run.h->usable()) run.h->runMinutes(60);
}

// Steady policies first written together (by a controller's first pass) do not stay together:
// a pass makes at most twice its share of heartbeat writes (20 policies x 1 minute / 5 minutes:
// 8), the others wait for the next passes and keep that spread, so that passes write some of them
// instead of every fifth pass writing all of them. No more writes than one per heartbeat.
TEST(StatusHeartbeatTest, SteadyPoliciesSpreadTheirWritesOverTheHeartbeat) {
  SteadyPolicies run;
  settle(run, 20);
  ASSERT_TRUE(run.h->usable());
  int& writes = run.writes;
  std::vector<int> perMinute;
  for (int minute = 0; minute < 20; ++minute) {
    writes = 0;
    run.h->runMinutes(1);
    perMinute.push_back(writes);
  }
  int total = 0;
  for (const int w : perMinute) total += w;
  // 20 policies, each written once per 5 minutes: 80 writes in 20 minutes.
  EXPECT_GE(total, 76);
  EXPECT_LE(total, 84);
  // All in one pass would be 20; spread, at most 8 a pass.
  EXPECT_LE(*std::max_element(perMinute.begin(), perMinute.end()), 8)
      << ::testing::PrintToString(perMinute);
  EXPECT_GE(std::count_if(perMinute.begin(), perMinute.end(), [](int w) { return w > 0; }), 10)
      << ::testing::PrintToString(perMinute);
}

// Held between passes (ControllerOptions::heartbeatsPerCall), the heartbeats reach the API
// server as often as when the passes write them: the harness calls reconcileDue() every tick,
// and each call writes what its passes held.
TEST(StatusHeartbeatTest, HeldStatusWritesAreWrittenAsOftenAsThePassesWouldWriteThem) {
  SteadyPolicies run;
  settle(run, 20, 100);
  ASSERT_TRUE(run.h->usable());
  run.writes = 0;
  run.h->runMinutes(20);
  EXPECT_GE(run.writes, 76);
  EXPECT_LE(run.writes, 84);
  EXPECT_EQ(run.h->controller().heldStatusWrites(), 0U);
  EXPECT_EQ(run.h->metric("attune_status_heartbeats_held"), 0.0);
}

// A full pass holds its heartbeats and writes none; the calls after it write them, at most
// heartbeatsPerCall each, oldest first, and report them. (Three a call is fewer than the passes
// hold, so some wait from the passes before.)
TEST(StatusHeartbeatTest, APassHoldsItsHeartbeatsAndTheCallsAfterItWriteThem) {
  SteadyPolicies run;
  settle(run, 20, 3);
  ASSERT_TRUE(run.h->usable());
  const auto written = [&] {
    return run.h->metric("attune_status_heartbeat_writes_total{result=\"written\"}").value_or(0);
  };
  const double writtenBefore = written();
  EXPECT_GT(writtenBefore, 0.0);
  // Ten minutes without a pass: every policy's heartbeat is due, and the budget of one
  // reconcile (20 x 1 minute / 5 minutes, twice: 8) grants 8 of them.
  ASSERT_TRUE(run.h->sim().runFor(10min).has_value());
  run.writes = 0;
  ASSERT_TRUE(run.h->controller().reconcileAll().has_value());
  EXPECT_EQ(run.writes, 0);
  const std::size_t held = run.h->controller().heldStatusWrites();
  EXPECT_GE(held, 8U);
  EXPECT_LE(held, 20U);
  for (std::size_t left = held; left > 0; left -= std::min<std::size_t>(left, 3)) {
    const int writesBefore = run.writes;
    ASSERT_TRUE(run.h->controller().reconcileDue().has_value());
    EXPECT_EQ(run.writes - writesBefore, static_cast<int>(std::min<std::size_t>(left, 3)));
    EXPECT_EQ(run.h->controller().heldStatusWrites(), left - std::min<std::size_t>(left, 3));
  }
  EXPECT_EQ(run.writes, static_cast<int>(held));
  EXPECT_EQ(written() - writtenBefore, static_cast<double>(held));
  EXPECT_EQ(run.h->metric("attune_status_heartbeats_held"), 0.0);
  // The eight the full pass granted carry its time.
  int current = 0;
  for (int i = 0; i < 20; ++i) {
    const api::AttunePolicy p = run.h->policy("apps", "web-" + std::to_string(i));
    if (p.status.lastReconcileTime == run.h->now()) ++current;
  }
  EXPECT_EQ(current, 8);
}

// A held heartbeat is written only over the version it was decided from: once anything else has
// written the policy (here another writer's status), the API server refuses it and it is
// dropped, leaving that write in place.
TEST(StatusHeartbeatTest, AHeldHeartbeatOvertakenByAnotherWriteIsDropped) {
  SteadyPolicies run;
  settle(run, 1, 100);
  ASSERT_TRUE(run.h->usable());
  ASSERT_TRUE(run.h->sim().runFor(10min).has_value());
  ASSERT_TRUE(run.h->controller().reconcileAll().has_value());
  ASSERT_EQ(run.h->controller().heldStatusWrites(), 1U);
  api::AttunePolicy other = run.h->policy("apps", "web-0");
  const Time otherTime = run.h->now() - 1min;
  other.status.lastReconcileTime = otherTime;
  ASSERT_TRUE(run.h->sim().api().updateAttunePolicyStatus(other).has_value());
  run.writes = 0;
  ASSERT_TRUE(run.h->controller().reconcileDue().has_value());
  EXPECT_EQ(run.writes, 1);
  EXPECT_EQ(run.h->controller().heldStatusWrites(), 0U);
  EXPECT_EQ(run.h->metric("attune_status_heartbeat_writes_total{result=\"dropped\"}"), 1.0);
  EXPECT_EQ(run.h->policy("apps", "web-0").status.lastReconcileTime, otherTime);
}

// A controller that starts confirms every policy it evaluates: its first pass writes the status
// even when the stored heartbeat, another replica's, is recent.
TEST(StatusHeartbeatTest, AReconcileMayWriteTwiceItsShareOfHeartbeats) {
  using std::chrono::minutes;
  using std::chrono::seconds;
  // 10,000 policies resynced every minute with a 10-minute heartbeat: 1,000 a minute, 2,000
  // allowed.
  EXPECT_EQ(HeartbeatBudget::perReconcile(10'000, minutes(1), minutes(10)).left, 2'000U);
  // A fraction of a write rounds up; no policies still allows one.
  EXPECT_EQ(HeartbeatBudget::perReconcile(3, seconds(1), minutes(10)).left, 1U);
  EXPECT_EQ(HeartbeatBudget::perReconcile(0, seconds(1), minutes(10)).left, 1U);
  EXPECT_EQ(HeartbeatBudget::perReconcile(200, seconds(1), minutes(1)).left, 7U);
  // A heartbeat due at every resync is never held back.
  EXPECT_EQ(HeartbeatBudget::perReconcile(10, minutes(1), minutes(1)).left, SIZE_MAX);
  EXPECT_EQ(HeartbeatBudget::perReconcile(10, minutes(5), minutes(1)).left, SIZE_MAX);
  HeartbeatBudget budget{.left = 2};
  EXPECT_TRUE(budget.take());
  EXPECT_TRUE(budget.take());
  EXPECT_FALSE(budget.take());
}

TEST(StatusHeartbeatTest, ANewControllerWritesInItsFirstPass) {
  HarnessOptions options;
  options.controller.statusHeartbeat = 24h;
  ScenarioHarness h(
      scenarioYaml(
          workloadYaml({.name = "web"}),
          policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"})),
      options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(60);
  const std::optional<Time> before = h.policy("apps", "web").status.lastReconcileTime;
  ASSERT_TRUE(before.has_value());
  h.runMinutes(10);
  EXPECT_EQ(h.policy("apps", "web").status.lastReconcileTime, before);  // nothing new: no write
  const Time restarted = h.now();
  h.restartController();
  h.runMinutes(1);
  const std::optional<Time> after = h.policy("apps", "web").status.lastReconcileTime;
  ASSERT_TRUE(after.has_value());
  EXPECT_GE(*after, restarted);
}

// Held heartbeats do not apply to a controller's first pass: it writes what it decided before
// it ends, so that the status confirms the new controller once its first pass is done.
TEST(StatusHeartbeatTest, AFirstPassWritesItsStatusItselfWhenHeartbeatsAreHeld) {
  SteadyPolicies run;
  settle(run, 3, 100);
  ASSERT_TRUE(run.h->usable());
  run.h->restartController();
  ASSERT_TRUE(run.h->sim().runFor(1min).has_value());
  run.writes = 0;
  ASSERT_TRUE(run.h->controller().reconcileAll().has_value());
  EXPECT_EQ(run.writes, 3);
  EXPECT_EQ(run.h->controller().heldStatusWrites(), 0U);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(run.h->policy("apps", "web-" + std::to_string(i)).status.lastReconcileTime,
              run.h->now())
        << i;
  }
}

// writeStatus with held writes, on one stored policy: which changes record something the pass did
// (written at once) and which only what it found (held).
class HeldStatusWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    api::AttunePolicy p;
    p.metadata.namespace_ = "apps";
    p.metadata.name = "web";
    ASSERT_TRUE(cluster_.createAttunePolicy(p).has_value());
    api::AttunePolicy withStatus = *cluster_.getAttunePolicy("apps", "web");
    withStatus.status.conditions = {{.type = "Ready", .status = "True", .reason = "Monitoring"}};
    api::WorkloadRecommendation w{.workload = "web"};
    w.containers.push_back({.name = "app", .dataPoints = 60});
    w.containers[0].recommended.cpuRequest = 200_m;
    withStatus.status.recommendations = {w};
    withStatus.status.resizeHistory = {resized(t0_)};
    withStatus.status.lastReconcileTime = t0_;
    auto written = cluster_.updateAttunePolicyStatus(withStatus);
    ASSERT_TRUE(written.has_value());
    stored_ = *written;
  }

  static api::ResizeHistoryEntry resized(Time at) {
    return {
        .timestamp = at, .workload = "web", .pod = "web-1", .result = api::ResizeResult::kSuccess};
  }
  static api::ResizeHistoryEntry skipped(Time at) {
    return {.timestamp = at,
            .workload = "web",
            .result = api::ResizeResult::kSkipped,
            .reason = "Cooldown"};
  }
  // The stored status as the next pass finds it: a minute later, the recommendation moved, and a
  // Cooldown skip recorded.
  api::AttunePolicyStatus foundLater() const {
    api::AttunePolicyStatus s = stored_.status;
    s.lastReconcileTime = t1_;
    s.recommendations[0].containers[0].recommended.cpuRequest = 300_m;
    s.resizeHistory.push_back(skipped(t1_));
    return s;
  }
  api::AttunePolicyStatus current() { return cluster_.getAttunePolicy("apps", "web")->status; }
  // writeStatus as a pass with held writes calls it, then whether it was held.
  bool held(api::AttunePolicyStatus status) {
    writeStatus(cluster_, stored_, status, 5min, nullptr, &held_);
    return held_.size() == 1 && current() == stored_.status;
  }

  SimulatedClock clock_{Time{} + 24h};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  Time t0_ = clock_.now();
  Time t1_ = t0_ + 1min;
  api::AttunePolicy stored_;
  HeldStatusWrites held_;
};

TEST_F(HeldStatusWritesTest, ARecommendationThatMovedAndASkipAreHeldUntilACallWritesThem) {
  const api::AttunePolicyStatus later = foundLater();
  ASSERT_TRUE(held(later));
  const api::AttunePolicyStatus* holding = held_.find(stored_.metadata);
  ASSERT_NE(holding, nullptr);
  EXPECT_EQ(*holding, later);
  const HeldStatusWrites::Written written = held_.write(cluster_, 10, clock_, 1min);
  EXPECT_EQ(written.sent, 1U);
  EXPECT_EQ(written.dropped, 0U);
  EXPECT_EQ(current(), later);
  EXPECT_EQ(held_.find(stored_.metadata), nullptr);
}

TEST_F(HeldStatusWritesTest, WithoutHeldWritesThePassWritesItAtOnce) {
  api::AttunePolicyStatus later = foundLater();
  writeStatus(cluster_, stored_, later, 5min);
  EXPECT_EQ(current(), later);
}

TEST_F(HeldStatusWritesTest, ASkipDroppingTheOldestEntryAtTheHistoryLimitIsHeld) {
  api::AttunePolicyStatus later = foundLater();
  later.resizeHistory.erase(later.resizeHistory.begin());
  EXPECT_TRUE(held(later));
}

TEST_F(HeldStatusWritesTest, AnythingThePassDidIsWrittenAtOnceAndDropsWhatWasHeld) {
  const std::vector<std::pair<std::string, std::function<void(api::AttunePolicyStatus&)>>> did{
      {"a resize recorded", [&](auto& s) { s.resizeHistory.push_back(resized(t1_)); }},
      {"a skip no newer than the stored history",
       [&](auto& s) { s.resizeHistory.back() = skipped(t0_); }},
      {"a skip before the stored history's end",
       [&](auto& s) { s.resizeHistory.insert(s.resizeHistory.begin(), skipped(t1_)); }},
      {"a condition", [](auto& s) { s.conditions[0].reason = "InsufficientData"; }},
      {"the resize time", [&](auto& s) { s.lastResizeTime = t1_; }},
      {"the reverts", [](auto& s) { s.consecutiveReverts = 1; }},
      {"the generation", [](auto& s) { s.observedGeneration = 2; }},
  };
  for (const auto& [what, change] : did) {
    SCOPED_TRACE(what);
    held_ = {};
    ASSERT_TRUE(held(foundLater()));
    api::AttunePolicyStatus status = foundLater();
    change(status);
    writeStatus(cluster_, stored_, status, 5min, nullptr, &held_);
    EXPECT_EQ(held_.size(), 0U);
    EXPECT_EQ(current(), status);
    // Back to the stored status for the next case.
    auto reset = cluster_.getAttunePolicy("apps", "web");
    ASSERT_TRUE(reset.has_value());
    reset->status = stored_.status;
    auto written = cluster_.updateAttunePolicyStatus(*reset);
    ASSERT_TRUE(written.has_value());
    stored_ = *written;
  }
}

// In the controller: the pass after a resize finds the recommendation moved with the pod and
// the workload cooling down (a Cooldown skip): it holds that write. The passes after it start
// from the held status, so that the skip it recorded is kept until a call writes it.
TEST(StatusHeartbeatTest, ThePassAfterAResizeHoldsItsSkipAndTheNextPassesKeepIt) {
  int writes = 0;
  HarnessOptions options;
  options.controller.heartbeatsPerCall = 100;
  options.controller.heartbeatSlice = Duration::zero();  // the calls write nothing held
  options.wrapApi = [&writes](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<StatusWrites>(cluster, writes);
  };
  // 200m used against a 100m request by each of 3 pods: 300m recommended, reached in two steps
  // of at most +100 % (200m, then 300m once the 45-minute cooldown has passed).
  ScenarioHarness h(scenarioYaml(workloadYaml({.name = "web",
                                               .replicas = 3,
                                               .requests = "{cpu: 100m, memory: 512Mi}",
                                               .limits = "{memory: 1Gi}"}),
                                 policyYaml({.name = "web",
                                             .target = "web",
                                             .updateStrategy = "{type: Auto, cooldown: 45m}"})),
                    options);
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 60min));
  // The resize (its CPU and memory) is written by its pass.
  const api::AttunePolicy resizedPass = h.policy("apps", "web");
  EXPECT_EQ(history(resizedPass, api::ResizeResult::kSuccess).size(), 2U);
  EXPECT_EQ(h.controller().heldStatusWrites(), 0U);
  writes = 0;
  h.runMinutes(1);
  ASSERT_EQ(h.actions(Kind::kResizeSkipped).size(), 1U);
  EXPECT_EQ(h.actions(Kind::kResizeSkipped).front().reason, "Cooldown");
  EXPECT_EQ(writes, 0);
  EXPECT_EQ(h.controller().heldStatusWrites(), 1U);
  EXPECT_EQ(h.policy("apps", "web").status, resizedPass.status);
  // Three more passes (the resized pod still under its 6-minute observation), nothing written.
  h.runMinutes(3);
  EXPECT_EQ(writes, 0);
  EXPECT_EQ(h.controller().heldStatusWrites(), 1U);
  // Written: the skip, once, and the moved recommendation.
  h.controller().flushStatusWrites(10, 1min);
  EXPECT_EQ(writes, 1);
  EXPECT_EQ(h.controller().heldStatusWrites(), 0U);
  const api::AttunePolicy written = h.policy("apps", "web");
  EXPECT_EQ(history(written, api::ResizeResult::kSkipped, "Cooldown").size(), 1U);
  ASSERT_EQ(written.status.recommendations.size(), 1U);
  ASSERT_EQ(written.status.recommendations[0].containers.size(), 1U);
  EXPECT_TRUE(near(written.status.recommendations[0].containers[0].recommended.cpuRequest, 300_m));
  EXPECT_EQ(written.status.lastReconcileTime, h.now());
}

}  // namespace
}  // namespace attune::controller::testing
