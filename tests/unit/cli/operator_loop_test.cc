// The operator's run loop on the in-process cluster with a SimulatedClock: pass scheduling,
// leader-only passes, takeover by a standby, lease release on shutdown, pass errors, readiness,
// and the probe and metrics endpoints.
#include "cli/operator_loop.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <vector>

#include "api/forwarding_cluster_api.h"
#include "cli/operator_endpoints.h"
#include "core/clock.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::cli {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

Time startTime() { return *parseRfc3339("2026-01-05T00:00:00Z"); }

// One replica: elector, driver, loop, with its passes recorded.
struct Replica {
  Replica(std::string identity, api::ClusterApi& api, SimulatedClock& clock, Logger& log,
          Duration reconcileInterval = minutes(1))
      : elector(api, clock, optionsFor(std::move(identity))),
        driver(elector, clock, log, registry),
        loop(
            clock, [this] { return driver.leader(); },
            [this, &clock]() -> Result<PassSummary> {
              passTimes.push_back(clock.now());
              return PassSummary{};
            },
            [] { return Result<void>{}; }, log, health, loopOptions(reconcileInterval)) {}

  static controller::LeaderElectionOptions optionsFor(std::string identity) {
    controller::LeaderElectionOptions o;
    o.identity = std::move(identity);
    return o;
  }
  static OperatorLoopOptions loopOptions(Duration interval) {
    OperatorLoopOptions o;
    o.reconcileInterval = interval;
    return o;
  }
  // Both halves of one iteration, as runInline does.
  void step() {
    driver.step();
    loop.step();
  }
  // One iteration, as runInline does it; returns how long until the next is due.
  Duration iterate() {
    const Duration election = driver.step();
    return std::min(election, loop.step());
  }

  metrics::Registry registry;
  OperatorHealth health;
  controller::LeaderElector elector;
  ElectionDriver driver;
  OperatorLoop loop;
  std::vector<Time> passTimes;
};

class OperatorLoopTest : public ::testing::Test {
 protected:
  // A Wait that advances the clock by what it is asked, until `end`.
  Wait until(Time end) {
    return [this, end](Duration d) {
      if (clock_.now() + d > end) return true;
      clock_.advance(d);
      return false;
    };
  }
  api::Lease lease() {
    return cluster_.getLease("attune-system", "attune-leader").value_or(api::Lease{});
  }

  SimulatedClock clock_{startTime()};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  Redactor redactor_;
  std::ostringstream out_;
  Logger log_{LogFormat::kText, LogLevel::kInfo, clock_, redactor_, out_};
};

TEST_F(OperatorLoopTest, WithoutElectionPassesRunEveryInterval) {
  OperatorHealth health;
  std::vector<Time> times;
  OperatorLoop loop(
      clock_, [] { return true; },
      [&]() -> Result<PassSummary> {
        times.push_back(clock_.now());
        clock_.advance(seconds(5));  // a pass takes time; the interval counts from its start
        return PassSummary{2, 1, 0, 3, 0};
      },
      [] { return Result<void>{}; }, log_, health, OperatorLoopOptions{});
  runInline(loop, nullptr, until(startTime() + minutes(10)), log_);
  ASSERT_EQ(times.size(), 11u);  // at 0, 1, ..., 10 minutes
  for (std::size_t i = 0; i < times.size(); ++i) EXPECT_EQ(times[i], startTime() + minutes(i));
  EXPECT_NE(out_.str().find("reconcile pass done policies=2 resizes=1 resizes_failed=0 "
                            "resizes_skipped=3 reverts=0 duration_s=5.000"),
            std::string::npos)
      << out_.str();
}

TEST_F(OperatorLoopTest, OnlyTheLeaderReconcilesAndAStandbyTakesOver) {
  Replica a("a", cluster_, clock_, log_);
  Replica b("b", cluster_, clock_, log_);
  for (int i = 0; i < 180; ++i) {  // three minutes, one iteration a second
    a.step();
    b.step();
    clock_.advance(seconds(1));
  }
  EXPECT_EQ(a.passTimes.size(), 3u);
  EXPECT_TRUE(b.passTimes.empty());
  EXPECT_NE(a.registry.render().find("attune_leader{lease=\"attune-leader\"} 1"), std::string::npos)
      << a.registry.render();
  EXPECT_NE(b.registry.render().find("attune_leader{lease=\"attune-leader\"} 0"),
            std::string::npos);
  // `a` stops (its process hangs): `b` takes over once a's lease has expired and reconciles at
  // once.
  const Time stopped = clock_.now();
  for (int i = 0; i < 30 && b.passTimes.empty(); ++i) {
    b.step();
    clock_.advance(seconds(1));
  }
  ASSERT_EQ(b.passTimes.size(), 1u);
  EXPECT_GE(b.passTimes[0], stopped + seconds(13));  // a renewed at most 2 s before stopping
  EXPECT_LE(b.passTimes[0], stopped + seconds(15) + seconds(2));
  EXPECT_EQ(lease().spec.holderIdentity, "b");
  EXPECT_NE(out_.str().find("became leader"), std::string::npos);
  EXPECT_NE(out_.str().find("standing by lease=attune-system/attune-leader holder=a"),
            std::string::npos)
      << out_.str();
}

TEST_F(OperatorLoopTest, AStandbyStepsAtTheObservedExpiryAndTakesOverWithinTheLeaseDuration) {
  // The leader dies at every offset of its 2 s retry period; the standby, waiting as long as its
  // driver asks (as runInline does), takes the lease at the instant it expires: never more than
  // the lease duration after the death.
  for (const auto offset : {std::chrono::milliseconds(0), std::chrono::milliseconds(700),
                            std::chrono::milliseconds(1999)}) {
    SCOPED_TRACE(offset.count());
    SimulatedClock clock{startTime()};
    sim::ClusterState state{clock};
    sim::Cluster cluster{state};
    Replica a("a", cluster, clock, log_);
    Replica b("b", cluster, clock, log_);
    Time bNext = clock.now();
    Time aNext = clock.now();
    const Time death = clock.now() + minutes(1) + offset;
    while (clock.now() < death) {  // both run; each steps when its driver said it would
      if (clock.now() >= aNext) aNext = clock.now() + a.iterate();
      if (clock.now() >= bNext) bNext = clock.now() + b.iterate();
      clock.advance(std::min({aNext, bNext, death}) - clock.now());
    }
    const Time lastRenewal = *cluster.getLease("attune-system", "attune-leader")->spec.renewTime;
    ASSERT_LE(lastRenewal, death);
    while (!b.driver.leader() && clock.now() < death + minutes(1)) {
      clock.advance(bNext - clock.now());
      bNext = clock.now() + b.iterate();
    }
    const api::Lease taken = *cluster.getLease("attune-system", "attune-leader");
    EXPECT_EQ(taken.spec.holderIdentity, "b");
    EXPECT_EQ(*taken.spec.acquireTime, lastRenewal + seconds(15));
    EXPECT_LE(*taken.spec.acquireTime - death, seconds(15));
    ASSERT_EQ(b.passTimes.size(), 1u);  // and reconciled in that same iteration
    EXPECT_EQ(b.passTimes[0], *taken.spec.acquireTime);
  }
}

// An API whose lease reads take `delay` of the clock (a server answering 429 with Retry-After,
// retried by the client).
class SlowLeaseReads final : public api::ForwardingClusterApi {
 public:
  SlowLeaseReads(api::ClusterApi& inner, SimulatedClock& clock)
      : ForwardingClusterApi(inner), clock_(clock) {}
  Result<api::Lease> getLease(std::string_view ns, std::string_view name) override {
    clock_.advance(delay);
    return ForwardingClusterApi::getLease(ns, name);
  }
  Duration delay = Duration::zero();

 private:
  SimulatedClock& clock_;
};

TEST_F(OperatorLoopTest, AnElectionStepLongerThanTheRetryPeriodIsLogged) {
  SlowLeaseReads api(cluster_, clock_);
  Replica a("a", api, clock_, log_);
  a.step();  // acquires, at once
  clock_.advance(seconds(2));
  api.delay = seconds(2);  // the retry period: not yet slow
  a.step();
  EXPECT_EQ(out_.str().find("leader election step slow"), std::string::npos) << out_.str();
  api.delay = std::chrono::milliseconds(3500);
  a.step();
  EXPECT_NE(out_.str().find("leader election step slow lease=attune-leader outcome=renewed "
                            "seconds=3.500"),
            std::string::npos)
      << out_.str();
  EXPECT_TRUE(a.driver.leader());
}

TEST_F(OperatorLoopTest, AnElectionStepStartedLongAfterItWasDueIsLogged) {
  Replica a("a", cluster_, clock_, log_);
  a.step();                    // acquires; the next step is due in a retry period (2 s)
  clock_.advance(seconds(4));  // two seconds late: the retry period, not yet late
  a.step();
  EXPECT_EQ(out_.str().find("leader election step late"), std::string::npos) << out_.str();
  clock_.advance(std::chrono::milliseconds(6500));  // 4.5 s late
  a.step();
  EXPECT_NE(out_.str().find("leader election step late lease=attune-leader seconds=4.500"),
            std::string::npos)
      << out_.str();
  EXPECT_TRUE(a.driver.leader()) << "renewed: 6.5 s is within the renew deadline";
}

// A clock whose every sleep overshoots by `overshoot`, as a thread woken late on busy cores.
class OversleepingClock final : public Clock {
 public:
  explicit OversleepingClock(Duration overshoot) : overshoot_(overshoot) {}
  Time now() const override { return clock_.now(); }
  void sleepFor(Duration d) override {
    ++sleeps;
    clock_.advance(d + overshoot_);
  }
  int sleeps = 0;

 private:
  SimulatedClock clock_{startTime()};
  Duration overshoot_;
};

TEST(SleepUntil, EndsAtTheDueTimeWhateverEachSleepOvershoots) {
  // The election thread waits for a standby's step at the lease's expiry, 8 s away, in 100 ms
  // sleeps. Each sleep overshoots by 20 ms: counted sleeps would end 80 * 20 ms = 1.6 s late;
  // read from the clock, the wait ends within one overshoot of the due time.
  OversleepingClock clock(std::chrono::milliseconds(20));
  const std::atomic<bool> stop{false};
  const Time due = clock.now() + seconds(8);
  sleepUntil(clock, due, stop, std::chrono::milliseconds(100));
  EXPECT_GE(clock.now(), due);
  EXPECT_LE(clock.now() - due, std::chrono::milliseconds(20));
  EXPECT_EQ(clock.sleeps, 67);  // 8 s / 120 ms a sleep, the last one shortened
}

TEST(SleepUntil, ReturnsAtOnceWhenStoppedOrAlreadyDue) {
  OversleepingClock clock(Duration::zero());
  const std::atomic<bool> stopped{true};
  sleepUntil(clock, clock.now() + seconds(8), stopped, std::chrono::milliseconds(100));
  const std::atomic<bool> running{false};
  sleepUntil(clock, clock.now(), running, std::chrono::milliseconds(100));
  EXPECT_EQ(clock.sleeps, 0);
}

TEST_F(OperatorLoopTest, ShutdownReleasesTheLeaseForAnImmediateTakeover) {
  Replica a("a", cluster_, clock_, log_);
  Replica b("b", cluster_, clock_, log_);
  b.step();  // b creates the lease first... then shuts down after a minute
  a.step();
  runInline(b.loop, &b.driver, until(clock_.now() + minutes(1)), log_);
  EXPECT_EQ(lease().spec.holderIdentity, "");
  EXPECT_FALSE(b.driver.leader());
  a.step();  // no waiting for the lease to expire
  EXPECT_EQ(lease().spec.holderIdentity, "a");
  EXPECT_EQ(a.passTimes.size(), 1u);
  EXPECT_NE(out_.str().find("released lease"), std::string::npos) << out_.str();
}

TEST_F(OperatorLoopTest, BetweenPassesThePollServesTheWorkQueueEveryTick) {
  OperatorHealth health;
  int passes = 0;
  std::vector<Time> polls;
  OperatorLoop loop(
      clock_, [] { return true; },
      [&]() -> Result<PassSummary> {
        ++passes;
        return PassSummary{};
      },
      [] { return Result<void>{}; }, log_, health, OperatorLoopOptions{});
  loop.setPoll([&]() -> Result<PassSummary> {
    polls.push_back(clock_.now());
    // A policy is due at the fifth poll (a cooldown ending, say), three at the tenth.
    if (polls.size() == 5) return PassSummary{1, 1, 0, 0, 0, {"apps/web"}};
    if (polls.size() == 10) return PassSummary{3, 0, 0, 0, 0, {"apps/a", "apps/b"}};
    return PassSummary{};
  });
  runInline(loop, nullptr, until(startTime() + minutes(1) - seconds(1)), log_);
  EXPECT_EQ(passes, 1);  // at 0; the next is due at one minute
  ASSERT_EQ(polls.size(), 29u) << "every 2 s tick between the passes";
  EXPECT_EQ(polls.front(), startTime() + seconds(2));
  const std::string text = out_.str();
  EXPECT_NE(text.find("reconciled from the work queue policies=1 resizes=1"), std::string::npos)
      << text;
  // The line names the policies that ran, and counts those it does not name.
  EXPECT_NE(text.find(" named=apps/web\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" named=apps/a,apps/b unnamed=1\n"), std::string::npos) << text;
  std::size_t lines = 0;
  for (std::size_t at = text.find("reconciled from the work queue"); at != std::string::npos;
       at = text.find("reconciled from the work queue", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 2U) << "polls that reconcile nothing are not logged";
}

TEST_F(OperatorLoopTest, PassErrorsAreLoggedAndTheLoopContinues) {
  OperatorHealth health;
  int passes = 0;
  OperatorLoop loop(
      clock_, [] { return true; },
      [&]() -> Result<PassSummary> {
        ++passes;
        return fail(ErrorCode::kUnavailable, "list attunepolicies: connection refused");
      },
      [] { return Result<void>{}; }, log_, health, OperatorLoopOptions{});
  runInline(loop, nullptr, until(startTime() + minutes(3)), log_);
  EXPECT_EQ(passes, 4);
  EXPECT_NE(out_.str().find("ERROR reconcile pass failed error=\"list attunepolicies: "
                            "connection refused\""),
            std::string::npos)
      << out_.str();
}

TEST_F(OperatorLoopTest, ReadyAfterTheFirstSuccessfulCheckAndAliveWhileLooping) {
  OperatorHealth health;
  int checks = 0;
  OperatorLoop loop(
      clock_, [] { return false; }, []() -> Result<PassSummary> { return PassSummary{}; },
      [&]() -> Result<void> {
        if (++checks < 3) return fail(ErrorCode::kUnavailable, "cluster unreachable");
        return {};
      },
      log_, health, OperatorLoopOptions{});
  EXPECT_FALSE(health.alive(clock_.now(), minutes(2)));
  loop.step();
  EXPECT_FALSE(health.ready());
  EXPECT_TRUE(health.alive(clock_.now(), minutes(2)));
  loop.step();
  EXPECT_FALSE(health.ready());
  loop.step();
  EXPECT_TRUE(health.ready());
  loop.step();
  EXPECT_EQ(checks, 3);  // not checked again once ready
  // The same failure is logged once.
  const std::string text = out_.str();
  EXPECT_EQ(text.find("not ready"), text.rfind("not ready")) << text;
  EXPECT_FALSE(health.alive(clock_.now() + minutes(3), minutes(2)));
}

TEST_F(OperatorLoopTest, EndpointsServeMetricsAndProbes) {
  metrics::Registry registry;
  registry.counter("attune_resize_total", "resizes", {"result"}).inc({"success"});
  OperatorHealth health;
  OperatorEndpoints endpoints{registry, health, clock_, minutes(2)};
  auto get = [&](std::string path) {
    http::server::HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    return endpoints.serve(r);
  };
  auto metrics = get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("attune_resize_total{result=\"success\"} 1"), std::string::npos)
      << metrics.body;
  EXPECT_EQ(metrics.contentType, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(get("/healthz").status, 500);
  EXPECT_EQ(get("/readyz").status, 503);
  health.beat(clock_.now());
  health.setReady();
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_EQ(get("/readyz").status, 200);
  clock_.advance(minutes(3));
  EXPECT_EQ(get("/healthz").status, 500);
  EXPECT_EQ(get("/nope").status, 404);
}

TEST(ListenAddress, Parses) {
  auto any = parseListenAddress(":8080", "--metrics-address");
  ASSERT_TRUE(any.has_value());
  EXPECT_EQ(any->host, "0.0.0.0");
  EXPECT_EQ(any->port, 8080);
  auto v6 = parseListenAddress("[::1]:0", "--metrics-address");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(parseListenAddress("127.0.0.1:9090", "f").value().host, "127.0.0.1");
  for (const char* bad : {"8080", "host:", "host:http", ":70000", "::1:80"}) {
    auto r = parseListenAddress(bad, "--metrics-address");
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().field, "--metrics-address");
  }
}

}  // namespace
}  // namespace attune::cli
