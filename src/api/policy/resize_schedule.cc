#include "api/policy/resize_schedule.h"

#include <algorithm>

namespace attune::api {

std::optional<int> parseTimeOfDay(std::string_view text) {
  if (text.size() != 5 || text[2] != ':') return std::nullopt;
  const auto digit = [&](std::size_t i) -> int {
    return text[i] >= '0' && text[i] <= '9' ? text[i] - '0' : -1;
  };
  const int h1 = digit(0), h2 = digit(1), m1 = digit(3), m2 = digit(4);
  if (h1 < 0 || h2 < 0 || m1 < 0 || m2 < 0) return std::nullopt;
  const int hours = h1 * 10 + h2;
  const int minutes = m1 * 10 + m2;
  if (hours > 23 || minutes > 59) return std::nullopt;
  return hours * 60 + minutes;
}

std::optional<int> weekdayIndex(std::string_view name) {
  const auto it = std::find(kWeekdayNames.begin(), kWeekdayNames.end(), name);
  if (it == kWeekdayNames.end()) return std::nullopt;
  return static_cast<int>(it - kWeekdayNames.begin());
}

}  // namespace attune::api
