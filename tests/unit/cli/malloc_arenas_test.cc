// configureMalloc: with it, threads that start allocating share at most kMallocArenas glibc
// arenas instead of taking one each, and blocks of kMmapThreshold bytes or more are mapped on
// their own however large a block freed before was. ctest runs each test in a process of its
// own, so the arenas and mappings counted here are this test's. releaseFreeMemory: freed chunks
// below a live one leave the resident set.
#include <malloc.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
  configureMalloc();
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

TEST(MallocArenasTest, BlocksFromTheThresholdUpAreMappedEvenAfterALargerOneWasFreed) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces glibc's malloc";
#endif
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") != nullptr ||
      std::getenv("GLIBC_TUNABLES") != nullptr) {
    GTEST_SKIP() << "the environment sets glibc's malloc tunables";
  }
  configureMalloc();
  // glibc's dynamic threshold would rise to 8 MiB when this block is freed, and carve the next
  // blocks below that from the heap.
  void* large = std::malloc(8 << 20);
  ASSERT_NE(large, nullptr);
  std::free(large);
  const std::size_t mappedBefore = mallinfo2().hblks;
  void* atThreshold = std::malloc(kMmapThreshold);
  void* oneMiB = std::malloc(1 << 20);
  ASSERT_NE(atThreshold, nullptr);
  ASSERT_NE(oneMiB, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mappedBefore + 2);
  void* below = std::malloc(kMmapThreshold / 2);  // from the heap
  ASSERT_NE(below, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mappedBefore + 2);
  std::free(below);
  std::free(oneMiB);
  std::free(atThreshold);
  EXPECT_EQ(mallinfo2().hblks, mappedBefore);  // unmapped when freed
}

// This process's resident size in bytes (/proc/self/statm's second field, in pages).
long residentBytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  long resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

TEST(MallocArenasTest, FreedMemoryBelowALiveBlockLeavesTheResidentSet) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces glibc's malloc: nothing for malloc_trim to return";
#endif
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr || std::getenv("GLIBC_TUNABLES") != nullptr) {
    GTEST_SKIP() << "the environment sets glibc's malloc tunables";
  }
  // 64 MiB in blocks below the mmap threshold, written so that their pages are resident; the
  // last one, carved above the others, stays: freeing the others leaves a free chunk that
  // glibc's own trim of the heap's top cannot reach.
  constexpr std::size_t kBlock = 4096;
  constexpr std::size_t kBlocks = 16384;
  std::vector<char*> blocks;
  blocks.reserve(kBlocks);
  for (std::size_t i = 0; i < kBlocks; ++i) {
    char* block = static_cast<char*>(std::malloc(kBlock));
    ASSERT_NE(block, nullptr);
    std::fill_n(block, kBlock, static_cast<char>(i));
    blocks.push_back(block);
  }
  char* pin = blocks.back();
  blocks.pop_back();
  for (char* block : blocks) std::free(block);
  const long before = residentBytes();
  releaseFreeMemory();
  const long after = residentBytes();
  std::free(pin);
  EXPECT_GE(before - after, 32L << 20) << "resident " << before << " bytes, then " << after;
}

}  // namespace
}  // namespace attune::cli
