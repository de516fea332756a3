// Fuzzes Quantity::parse: no crash, and every accepted quantity's canonical string parses back
// to the same value. (As with the API server, a binary-format integer that is no multiple of
// 1024 prints as plain digits, which re-parse as decimal SI: "6824004266432000" then becomes
// "6824004266432k". From the second formatting on, the string is stable.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = attune::Quantity::parse(text);
  if (!q) {
    if (q.error().message.empty()) std::abort();
    return 0;
  }
  std::string canonical = q->toString();
  auto again = attune::Quantity::parse(canonical);
  if (!again || *again != *q) std::abort();
  auto third = attune::Quantity::parse(again->toString());
  if (!third || third->toString() != again->toString()) std::abort();
  // Rounding to resource units never moves towards zero.
  auto milli = static_cast<__int128>(q->toMillicores().value()) * 1'000'000;
  if (q->sign() > 0 && milli < q->nanos() && q->toMillicores() != attune::Millicores::max()) {
    std::abort();
  }
  return 0;
}
