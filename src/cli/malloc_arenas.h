// The malloc arena limit of the long-running operator processes.
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

}  // namespace attune::cli
