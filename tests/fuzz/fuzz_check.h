// The check every fuzz target makes of its invariants: a failed one aborts, naming its file and
// line, so that libFuzzer (or the corpus replay) reports the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <source_location>

namespace attune::fuzz {

inline void check(bool ok, std::source_location where = std::source_location::current()) {
  if (ok) return;
  std::fprintf(stderr, "check failed at %s:%u\n", where.file_name(), where.line());
  std::abort();
}

}  // namespace attune::fuzz
