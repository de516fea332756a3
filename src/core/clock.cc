#include "core/clock.h"

#include "core/clock_monotonic.h"

#include <thread>

namespace attune {

Time SystemClock::now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

MonotonicTime monotonicNow() { return std::chrono::steady_clock::now(); }

void SystemClock::sleepFor(Duration d) {
  if (d > Duration::zero()) std::this_thread::sleep_for(d);
}

void SimulatedClock::advance(Duration d) {
  if (d > Duration::zero()) advanceTo(now_ + d);
}

void SimulatedClock::advanceTo(Time t) {
  // Run callbacks one at a time: a callback may schedule or cancel others.
  while (!timers_.empty() && timers_.begin()->first.first <= t) {
    auto node = timers_.extract(timers_.begin());
    if (node.key().first > now_) now_ = node.key().first;
    node.mapped()();
  }
  if (t > now_) now_ = t;
}

SimulatedClock::TimerId SimulatedClock::at(Time due, std::function<void()> fn) {
  TimerId id = nextId_++;
  timers_.emplace(std::make_pair(due, id), std::move(fn));
  return id;
}

bool SimulatedClock::cancel(TimerId id) {
  for (auto it = timers_.begin(); it != timers_.end(); ++it) {
    if (it->first.second == id) {
      timers_.erase(it);
      return true;
    }
  }
  return false;
}

Time SimulatedClock::nextDue() const {
  return timers_.empty() ? Time::max() : timers_.begin()->first.first;
}

}  // namespace attune
