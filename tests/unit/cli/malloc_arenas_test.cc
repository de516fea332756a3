// limitMallocArenas: with it, threads that start allocating share at most kMallocArenas glibc
// arenas instead of taking one each. ctest runs each test in a process of its own, so the
// arenas counted here are this test's.
#include <malloc.h>

#include <gtest/gtest.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/malloc_arenas.h"

namespace attune::cli {
namespace {

// The arenas glibc has made so far: the <heap nr="N"> elements of malloc_info's report.
int arenas() {
  char* text = nullptr;
  std::size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  malloc_info(0, out);
  std::fclose(out);
  const std::string report(text, size);
  std::free(text);
  int count = 0;
  for (std::size_t at = report.find("<heap nr="); at != std::string::npos;
       at = report.find("<heap nr=", at + 1)) {
    ++count;
  }
  return count;
}

TEST(MallocArenasTest, ThreadsAllocatingAtOnceShareTheLimitedArenas) {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr || std::getenv("GLIBC_TUNABLES") != nullptr) {
    GTEST_SKIP() << "the environment sets glibc's malloc tunables";
  }
  limitMallocArenas();
  constexpr int kThreads = 8;
  std::barrier ready(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&ready] {
      ready.arrive_and_wait();  // all of them allocate at once
      std::vector<std::unique_ptr<char[]>> blocks;
      for (int n = 0; n < 1000; ++n) blocks.push_back(std::make_unique<char[]>(4096));
      ready.arrive_and_wait();  // and hold their memory until all have allocated
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(arenas(), kMallocArenas);
}

}  // namespace
}  // namespace attune::cli
