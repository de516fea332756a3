#include "api/k8s/int_or_string.h"

#include <charconv>

namespace attune::api {

Result<std::int32_t> scaledValue(const IntOrString& value, std::int32_t total, bool roundUp) {
  if (!value.isString) return value.intValue;
  const std::string& text = value.stringValue;
  std::int64_t percent = 0;
  const char* end = text.data() + text.size();
  auto [last, ec] = std::from_chars(text.data(), end, percent);
  if (text.empty() || ec != std::errc() || last + 1 != end || *last != '%') {
    return fail(ErrorCode::kInvalidArgument,
                "invalid value for IntOrString: \"" + text + "\" is not a percentage");
  }
  const std::int64_t product = percent * total;
  const std::int64_t scaled = roundUp && product > 0 ? (product + 99) / 100 : product / 100;
  return static_cast<std::int32_t>(scaled);
}

}  // namespace attune::api
