// The malloc settings of the long-running operator processes: an arena limit, and free memory
// handed back to the system after a pass.
#pragma once

namespace attune::cli {

// Malloc arenas of a long-running operator process. glibc gives each new thread that allocates
// an arena of its own (up to eight per core) and keeps what is freed in each;
// the usage reads decode responses of several MiB on their own threads, so the freed memory of
// a pass ended up spread over many arenas, most of the resident size (docs/scale.md, "A day of
// history"). Called first thing by `attune controller` and `attune hpa-guard`, before any
// thread starts; MALLOC_ARENA_MAX or a GLIBC_TUNABLES malloc.arena_max in the environment wins.
inline constexpr int kMallocArenas = 2;
void limitMallocArenas();

// Hands the free memory of every arena back to the system (malloc_trim): the pages of free
// chunks anywhere in a heap, not only at its top. A pass that reads a day of history frees tens
// of MiB of responses and decoded series that glibc would otherwise keep resident until the
// next pass reuses them (docs/operator.md, "Memory"). Costs a walk over the free chunks; the
// controller calls it after a pass or poll that reconciled a policy.
void releaseFreeMemory();

}  // namespace attune::cli
