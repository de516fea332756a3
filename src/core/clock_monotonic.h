// Monotonic time for real I/O deadlines (socket read and write timeouts) only: never for
// behaviour that tests drive through a Clock (core/clock.h).
#pragma once

#include <chrono>

namespace attune {

using MonotonicTime = std::chrono::steady_clock::time_point;
MonotonicTime monotonicNow();

}  // namespace attune
