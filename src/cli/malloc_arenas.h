// The malloc settings of the long-running operator processes: an arena limit, a fixed mmap
// threshold, and free memory handed back to the system after a pass.
#pragma once

#include <cstddef>

namespace attune::cli {

// Malloc arenas of a long-running operator process. glibc gives each new thread that allocates
// an arena of its own (up to eight per core) and keeps what is freed in each;
// the usage reads decode responses of several MiB on their own threads, so the freed memory of
// a pass ended up spread over many arenas, most of the resident size (docs/scale.md, "A day of
// history"), before the trim after each pass. With too few, the reads' threads share the pass
// thread's arena and each waits on the other's lock: at 2, a 100,000-pod pass slept about 50 ms
// in malloc and free (docs/scale.md, "the trim after the pass").
inline constexpr int kMallocArenas = 8;
// Allocations of at least this many bytes are mapped on their own and unmapped when freed.
// glibc's default threshold starts at 128 KiB but rises after each such free, up to 32 MiB, so
// a process that reads large responses soon carves every later response body, parser buffer and
// list copy from the heap, among small live objects that keep the freed pages resident. A fixed
// threshold also stops that rise (docs/operator.md, "Memory").
inline constexpr std::size_t kMmapThreshold = 256 * 1024;

// Sets both, first thing in `attune controller` and `attune hpa-guard`, before any thread
// starts. Each setting yields to the environment: MALLOC_ARENA_MAX or a GLIBC_TUNABLES
// malloc.arena_max for the arenas, MALLOC_MMAP_THRESHOLD_ or a GLIBC_TUNABLES
// malloc.mmap_threshold for the threshold.
void configureMalloc();

// Hands the free memory of every arena back to the system (malloc_trim): the pages of free
// chunks anywhere in a heap, not only at its top. A pass that reads a day of history frees tens
// of MiB of responses and decoded series that glibc would otherwise keep resident until the
// next pass reuses them (docs/operator.md, "Memory"). Costs a walk over the free chunks; the
// controller calls it after a pass or poll that reconciled a policy.
void releaseFreeMemory();

}  // namespace attune::cli
