// The only way Attune code reads time or waits. Production code gets a SystemClock; tests and
// the simulator get a SimulatedClock and advance it, letting due work run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include "core/time.h"

namespace attune {

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time.
  virtual Time now() const = 0;
  // Blocks (SystemClock) or advances simulated time (SimulatedClock) by `d`.
  virtual void sleepFor(Duration d) = 0;
};
using ClockPtr = std::unique_ptr<Clock>;

// Wall-clock time. Thread-safe.
class SystemClock final : public Clock {
 public:
  Time now() const override;
  void sleepFor(Duration d) override;
};

// Deterministic time for tests and the simulator. Time only moves when advanced; callbacks
// scheduled with `at` run, in time order (ties in scheduling order), when time reaches them,
// with now() equal to their due time. Not thread-safe: one owner drives it.
class SimulatedClock final : public Clock {
 public:
  using TimerId = std::uint64_t;

  explicit SimulatedClock(Time start) : now_(start) {}

  Time now() const override { return now_; }
  // Same as advance(d).
  void sleepFor(Duration d) override { advance(d); }

  // Moves time forward by `d` (negative durations are ignored), running due callbacks.
  void advance(Duration d);
  // Moves time to `t` if it is later than now, running due callbacks.
  void advanceTo(Time t);

  // Schedules `fn` to run when time reaches `due` (at the next advance if `due` is not later
  // than now). Callbacks may schedule further callbacks.
  TimerId at(Time due, std::function<void()> fn);
  // Cancels a pending callback; returns false if it already ran or was never scheduled.
  bool cancel(TimerId id);
  // Number of callbacks still pending.
  std::size_t pending() const { return timers_.size(); }
  // Time of the earliest pending callback, or Time::max() if none.
  Time nextDue() const;

 private:
  Time now_;
  TimerId nextId_ = 1;
  // (due, id) → callback; id breaks ties in scheduling order.
  std::map<std::pair<Time, TimerId>, std::function<void()>> timers_;
};

}  // namespace attune
