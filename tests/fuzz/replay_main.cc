// Replays a fuzz target over its seed corpus when libFuzzer is not linked (g++ builds, CI).
// Usage: fuzz_NAME PATH... — each PATH is a file or a directory of files. Exits non-zero when a
// path cannot be read or holds no input; a crash or failed check in the target aborts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool runFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy in its own allocation, so ASan sees reads past the end.
  std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.data(), input.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path arg(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        if (!runFile(f)) return 1;
        ++ran;
      }
    } else {
      if (!runFile(arg)) return 1;
      ++ran;
    }
  }
  if (ran == 0) {
    std::fprintf(stderr, "no corpus inputs given\n");
    return 1;
  }
  std::printf("replayed %d inputs\n", ran);
  return 0;
}
