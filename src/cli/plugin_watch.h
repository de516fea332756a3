// `--watch` of `kubectl attune`: the command's output again every interval, on a Clock (tests
// drive a SimulatedClock, so nothing sleeps in them).
#pragma once

#include <functional>

#include "core/clock.h"

namespace attune::cli::plugin {

// Runs `once`, then again every `interval` of `clock` until `iterations` runs have been made (0:
// no bound) or `once` returns false. Returns the number of runs made.
inline int repeatEvery(Clock& clock, Duration interval, int iterations,
                       const std::function<bool()>& once) {
  int runs = 0;
  while (true) {
    ++runs;
    if (!once()) return runs;
    if (iterations > 0 && runs >= iterations) return runs;
    clock.sleepFor(interval);
  }
}

}  // namespace attune::cli::plugin
