// SimHost: one Simulation run in wall-clock time for the REST front end. A ticker thread steps
// the simulation once per `tickInterval` of wall time; every other access goes through
// withSimulation(), under the same mutex, so handlers on many threads see consistent state.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "sim/engine/simulation.h"

namespace attune::sim::serve {

class SimHost {
 public:
  // `wall` (normally a SystemClock) paces the ticks and must outlive the host; `tickInterval`
  // is the wall time per simulation tick (> 0).
  SimHost(std::unique_ptr<Simulation> simulation, Clock& wall, Duration tickInterval);
  // stop().
  ~SimHost();
  SimHost(const SimHost&) = delete;
  SimHost& operator=(const SimHost&) = delete;

  // Starts the ticker thread. The first tick runs at once (so pods exist), the next ones every
  // tickInterval; a tick that falls behind by more than one interval is not caught up.
  void start();
  // Stops the ticker and wakes every waitForChange(); idempotent.
  void stop();
  // Steps the simulation once under the lock, as the ticker does every tickInterval (tests call
  // it directly), and books the time the step held the lock.
  void tick();
  // The ticks run and the wall time they held the simulation's lock, in the Prometheus text
  // format: attune_sim_ticks_total, attune_sim_tick_seconds_total, and the last tick's start
  // (attune_sim_last_tick_start_timestamp_seconds, Unix time) and length
  // (attune_sim_last_tick_seconds). While a tick runs, every request that reads the simulation
  // waits. Does not take the simulation's lock.
  std::string tickMetricsText();

  // Runs fn(Simulation&) under the lock and returns its result; then wakes the waiters (fn may
  // have written). fn must not call back into the host.
  template <typename Fn>
  auto withSimulation(Fn&& fn) -> decltype(fn(std::declval<Simulation&>())) {
    std::unique_lock lock(mutex_);
    struct Notify {
      SimHost& host;
      ~Notify() { host.notifyLocked(); }
    } notify{*this};
    return fn(*simulation_);
  }

  // Per-topic change signals (a watch stream waits for its resource's events only, so that a
  // write does not wake every stream): raiseLocked(topic), called under the lock (from fn, or
  // from what a tick calls), marks the topic changed; its waiters are woken when the lock is
  // released. waitForChange(topic, seen) blocks until the topic's generation differs from
  // `seen`, the host stops, or a heartbeat passes; generation(topic) is where it stands.
  void raiseLocked(std::string_view topic);
  std::uint64_t waitForChange(std::string_view topic, std::uint64_t seen);
  std::uint64_t generation(std::string_view topic);

  // Runs fn(Simulation&) under the lock for reading: fn must not write to the simulation, and
  // the waiters are not woken.
  template <typename Fn>
  auto inspect(Fn&& fn) -> decltype(fn(std::declval<Simulation&>())) {
    std::lock_guard lock(mutex_);
    return fn(*simulation_);
  }

  // Blocks until the generation (advanced by every tick and every withSimulation call) differs
  // from `seen`, the host stops, or a heartbeat passes (about once a second of wall time while
  // the ticker runs, so that waiting streams can check their deadlines). Returns the current
  // generation.
  std::uint64_t waitForChange(std::uint64_t seen);
  std::uint64_t generation();
  // True once the first tick has run and until stop(), unless a tick failed.
  bool ready();
  bool stopped();
  // The error of the tick that failed (ticking stops after it), if any.
  std::optional<Error> failure();
  Clock& wall() { return wall_; }

 private:
  struct Topic {
    std::condition_variable changed;
    std::uint64_t generation = 0;
    bool raised = false;  // in raised_
  };
  void run();
  // Under the lock: advances the generation and wakes the waiters of every change and of the
  // topics raised.
  void notifyLocked();
  // Under the lock: wakes every waiter (a heartbeat, stop()).
  void wakeAllLocked();
  Topic& topicLocked(std::string_view name);

  std::unique_ptr<Simulation> simulation_;
  Clock& wall_;
  Duration tickInterval_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t generation_ = 0;
  std::uint64_t heartbeats_ = 0;
  bool stopping_ = false;
  bool ticked_ = false;
  std::optional<Error> failure_;
  std::thread ticker_;
  std::map<std::string, std::unique_ptr<Topic>, std::less<>> topics_;  // guarded by mutex_
  std::vector<Topic*> raised_;  // since the last notifyLocked(), guarded by mutex_

  struct TickStats {
    std::uint64_t ticks = 0;
    Duration held{};  // every tick's
    Time lastStart{};
    Duration last{};
  };
  std::mutex statsMutex_;  // guards stats_ (not the simulation's lock: read by /metrics/requests)
  TickStats stats_;
};

}  // namespace attune::sim::serve
