#include "cli/operator_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

namespace attune::cli {
namespace {

constexpr Duration kStopSlice = std::chrono::milliseconds(100);

std::string seconds(Duration d) {
  return fmt::format("{:.3f}", std::chrono::duration<double>(d).count());
}

std::string errorText(const controller::ElectionStep& step) {
  return step.error ? step.error->toString() : std::string();
}

}  // namespace

bool OperatorHealth::alive(Time now, Duration tolerance) const {
  const Duration::rep beat = lastBeat_.load();
  if (beat == 0) return false;
  return now - Time(Duration(beat)) <= tolerance;
}

// --- ElectionDriver

ElectionDriver::ElectionDriver(controller::LeaderElector& elector, Clock& clock, Logger& log,
                               metrics::Registry& registry)
    : elector_(elector),
      clock_(clock),
      log_(log),
      gauge_(registry.gauge("attune_leader", "1 while this replica holds the leader-election lease",
                            {"lease"})) {
  gauge_.set({elector_.options().name}, 0);
}

bool ElectionDriver::leader() const {
  const Duration::rep until = leaderUntil_.load();
  return until != 0 && clock_.now() < Time(Duration(until));
}

void ElectionDriver::publish() {
  const auto& renewal = elector_.lastRenewal();
  leaderUntil_.store(
      renewal ? (*renewal + elector_.options().renewDeadline).time_since_epoch().count() : 0);
  gauge_.set({elector_.options().name}, elector_.isLeader() ? 1 : 0);
}

Duration ElectionDriver::step() {
  const Time now = clock_.now();
  const auto& o = elector_.options();
  if (nextStep_ && now < *nextStep_) return *nextStep_ - now;
  // A step starting over a retry period after it was due (this thread not woken, or the
  // process not scheduled, for that long) also eats into the renew deadline: said too.
  if (nextStep_ && now - *nextStep_ > o.retryPeriod) {
    log_.warn("leader election step late",
              {{"lease", o.name}, {"seconds", seconds(now - *nextStep_)}});
  }
  nextStep_ = now + o.retryPeriod;
  const controller::ElectionStep step = elector_.tryAcquireOrRenew();
  publish();
  // A step that outlasts the retry period (an API server answering slowly, or this process
  // starved of CPU) eats into the renew deadline: said, so that a lost lease can be explained.
  if (const Duration took = clock_.now() - now; took > o.retryPeriod) {
    log_.warn("leader election step slow",
              {{"lease", o.name},
               {"outcome", std::string(controller::toString(step.outcome))},
               {"seconds", seconds(took)}});
  }
  switch (step.outcome) {
    case controller::ElectionOutcome::kAcquired:
      log_.info("became leader",
                {{"lease", o.namespace_ + "/" + o.name}, {"identity", o.identity}});
      lastHolder_.clear();
      break;
    case controller::ElectionOutcome::kRenewed:
      log_.debug("renewed lease", {{"lease", o.name}});
      break;
    case controller::ElectionOutcome::kStandby:
      if (step.holder != lastHolder_) {
        log_.info("standing by", {{"lease", o.namespace_ + "/" + o.name}, {"holder", step.holder}});
        lastHolder_ = step.holder;
      }
      break;
    case controller::ElectionOutcome::kLost:
      log_.warn("lost leadership",
                {{"lease", o.name}, {"holder", step.holder}, {"error", errorText(step)}});
      lastHolder_ = step.holder;
      break;
    case controller::ElectionOutcome::kFailed:
      // The same failure every retry period is logged once, then at debug level.
      log_.log(errorText(step) == lastError_ ? LogLevel::kDebug : LogLevel::kWarn,
               "leader election step failed", {{"lease", o.name}, {"error", errorText(step)}});
      break;
  }
  lastError_ = step.outcome == controller::ElectionOutcome::kFailed ? errorText(step) : "";
  const bool isLeader = elector_.isLeader();
  if (wasLeader_ && !isLeader && step.outcome != controller::ElectionOutcome::kLost) {
    log_.warn("lost leadership",
              {{"lease", o.name}, {"error", "no renewal within the renew deadline"}});
  }
  wasLeader_ = isLeader;
  if (const auto until = elector_.heldByAnotherUntil(); until && *until > now) {
    nextStep_ = std::min(*nextStep_, *until);
  }
  return *nextStep_ - now;
}

void ElectionDriver::release() {
  const bool held = elector_.lastRenewal().has_value();
  auto released = elector_.release();
  publish();
  wasLeader_ = false;
  if (!released) {
    log_.warn("releasing the lease failed", {{"error", released.error().toString()}});
  } else if (held) {
    log_.info("released lease", {{"lease", elector_.options().name}});
  }
}

// --- OperatorLoop

OperatorLoop::OperatorLoop(Clock& clock, Leader leader, Pass pass, ReadinessCheck ready,
                           Logger& log, OperatorHealth& health, OperatorLoopOptions options)
    : clock_(clock),
      leader_(std::move(leader)),
      pass_(std::move(pass)),
      ready_(std::move(ready)),
      log_(log),
      health_(health),
      options_(options) {}

void OperatorLoop::runPass() {
  const Time start = clock_.now();
  nextPass_ = start + options_.reconcileInterval;
  ++passes_;
  auto summary = pass_();
  const std::string took = seconds(clock_.now() - start);
  if (!summary) {
    log_.error("reconcile pass failed",
               {{"error", summary.error().toString()}, {"duration_s", took}});
    return;
  }
  if (!options_.logPasses) return;
  log_.info("reconcile pass done", {{"policies", std::to_string(summary->policies)},
                                    {"resizes", std::to_string(summary->resizes)},
                                    {"resizes_failed", std::to_string(summary->resizesFailed)},
                                    {"resizes_skipped", std::to_string(summary->resizesSkipped)},
                                    {"reverts", std::to_string(summary->reverts)},
                                    {"duration_s", took}});
}

void OperatorLoop::runPoll() {
  const Time start = clock_.now();
  auto summary = poll_();
  if (!summary) {
    if (summary.error().toString() != lastPollError_) {
      lastPollError_ = summary.error().toString();
      log_.warn("work queue poll failed", {{"error", lastPollError_}});
    }
    return;
  }
  lastPollError_.clear();
  if (summary->policies == 0) return;
  std::vector<LogField> fields = {{"policies", std::to_string(summary->policies)},
                                  {"resizes", std::to_string(summary->resizes)},
                                  {"resizes_failed", std::to_string(summary->resizesFailed)},
                                  {"resizes_skipped", std::to_string(summary->resizesSkipped)},
                                  {"reverts", std::to_string(summary->reverts)},
                                  {"duration_s", seconds(clock_.now() - start)}};
  // Which policies ran (policy names hold no comma), so that a pod change can be followed to
  // the run that reconciled its policy.
  if (!summary->named.empty())
    fields.emplace_back("named", fmt::format("{}", fmt::join(summary->named, ",")));
  if (summary->policies > summary->named.size()) {
    fields.emplace_back("unnamed", std::to_string(summary->policies - summary->named.size()));
  }
  log_.logWith(LogLevel::kInfo, "reconciled from the work queue", fields);
}

Duration OperatorLoop::step() {
  health_.beat(clock_.now());
  if (!health_.ready()) {
    auto ok = ready_();
    if (ok) {
      health_.setReady();
      log_.info("ready");
    } else if (ok.error().toString() != lastReadinessError_) {
      lastReadinessError_ = ok.error().toString();
      log_.warn("not ready", {{"error", lastReadinessError_}});
    }
  }
  if (!leader_()) {
    nextPass_.reset();  // after (re)gaining leadership, reconcile at once
  } else if (!nextPass_ || clock_.now() >= *nextPass_) {
    runPass();
  } else if (poll_) {
    runPoll();
  }
  const Time now = clock_.now();
  health_.beat(now);
  Time next = now + options_.tick;
  if (nextPass_) next = std::min(next, *nextPass_);
  return std::max(next - now, Duration::zero());
}

// --- Runners

void runInline(OperatorLoop& loop, ElectionDriver* driver, const Wait& wait, Logger& log) {
  while (true) {
    Duration d = driver != nullptr ? driver->step() : Duration::max();
    d = std::min(d, loop.step());
    if (wait(d)) break;
  }
  log.info("shutting down", {{"passes", std::to_string(loop.passes())}});
  if (driver != nullptr) driver->release();
}

void sleepUntil(Clock& clock, Time due, const std::atomic<bool>& stop, Duration slice) {
  for (Time now = clock.now(); now < due && !stop.load(); now = clock.now()) {
    clock.sleepFor(std::min(due - now, slice));
  }
}

void runThreaded(OperatorLoop& loop, ElectionDriver& driver, Clock& clock, const Wait& wait,
                 Logger& log) {
  std::atomic<bool> stop{false};
  std::thread election([&] {
    while (!stop.load()) {
      const Time start = clock.now();
      sleepUntil(clock, start + driver.step(), stop, kStopSlice);
    }
  });
  while (true) {
    Duration d = loop.step();
    if (loop.ready() && !driver.leader()) d = std::min(d, kStopSlice);
    if (wait(d)) break;
  }
  log.info("shutting down", {{"passes", std::to_string(loop.passes())}});
  stop.store(true);
  election.join();
  driver.release();
}

}  // namespace attune::cli
