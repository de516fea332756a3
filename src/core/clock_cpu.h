// The CPU time this process has used, for benchmarks that report what a run costs on one core
// whatever else the machine is doing: never for behaviour (that takes a Clock, core/clock.h).
#pragma once

namespace attune {

// Seconds of CPU time used by every thread of this process so far (user and system).
double processCpuSeconds();

}  // namespace attune
