// SimHost: one Simulation run in wall-clock time for the REST front end. A ticker thread steps
// the simulation once per `tickInterval` of wall time; every other access goes through
// withSimulation(), under the same mutex, so handlers on many threads see consistent state.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

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

  // Runs fn(Simulation&) under the lock and returns its result; then wakes the waiters (fn may
  // have written). fn must not call back into the host.
  template <typename Fn>
  auto withSimulation(Fn&& fn) -> decltype(fn(std::declval<Simulation&>())) {
    std::unique_lock lock(mutex_);
    struct Notify {
      SimHost& host;
      ~Notify() {
        ++host.generation_;
        host.changed_.notify_all();
      }
    } notify{*this};
    return fn(*simulation_);
  }

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
  void run();

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
};

}  // namespace attune::sim::serve
