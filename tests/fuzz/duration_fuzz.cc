// Fuzzes parseDuration: no crash, and every accepted duration formats to a string that parses
// back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/time.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto d = attune::parseDuration(text);
  if (!d) {
    if (d.error().message.empty()) std::abort();
    return 0;
  }
  auto again = attune::parseDuration(attune::formatDuration(*d));
  if (!again || *again != *d) std::abort();
  return 0;
}
