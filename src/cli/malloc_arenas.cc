#include "cli/malloc_arenas.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace attune::cli {

void limitMallocArenas() {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  if (const char* tunables = std::getenv("GLIBC_TUNABLES");
      tunables != nullptr &&
      std::string_view(tunables).find("malloc.arena_max") != std::string_view::npos) {
    return;
  }
  mallopt(M_ARENA_MAX, kMallocArenas);
}

void releaseFreeMemory() { malloc_trim(0); }

}  // namespace attune::cli
