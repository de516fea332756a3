#include "cli/malloc_arenas.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace attune::cli {
namespace {

// Whether the environment sets the tunable itself: `variable`, or `tunable` named in
// GLIBC_TUNABLES.
bool setByEnvironment(const char* variable, std::string_view tunable) {
  if (std::getenv(variable) != nullptr) return true;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::string_view(tunables).find(tunable) != std::string_view::npos;
}

}  // namespace

void configureMalloc() {
  if (!setByEnvironment("MALLOC_ARENA_MAX", "malloc.arena_max")) {
    mallopt(M_ARENA_MAX, kMallocArenas);
  }
  if (!setByEnvironment("MALLOC_MMAP_THRESHOLD_", "malloc.mmap_threshold")) {
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThreshold));
  }
}

void releaseFreeMemory() { malloc_trim(0); }

}  // namespace attune::cli
