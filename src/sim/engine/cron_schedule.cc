#include "sim/engine/cron_schedule.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace attune::sim {
namespace {

struct FieldRange {
  std::string_view name;
  int min;
  int max;
  const std::array<std::string_view, 12>* names;  // value names, index 0 = min; may be null
};

constexpr std::array<std::string_view, 12> kMonthNames = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                          "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<std::string_view, 12> kDayNames = {"SUN", "MON", "TUE", "WED",
                                                        "THU", "FRI", "SAT"};

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at == text.npos ? text.npos : at - start));
    if (at == text.npos) return out;
    start = at + 1;
  }
}

std::optional<int> value(std::string_view text, const FieldRange& range) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && end == text.data() + text.size()) return v;
  if (range.names == nullptr) return std::nullopt;
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (std::size_t i = 0; i < range.names->size(); ++i) {
    if (!(*range.names)[i].empty() && (*range.names)[i] == upper) {
      return range.min + static_cast<int>(i);
    }
  }
  return std::nullopt;
}

// Parses one field into `bits` (bit v set for each scheduled v); returns whether it was
// restricted (anything but `*` / `?`).
template <std::size_t N>
Result<bool> parseField(std::string_view text, const FieldRange& range, std::bitset<N>& bits) {
  auto bad = [&](std::string why) {
    return fail(
        ErrorCode::kInvalidArgument,
        "invalid " + std::string(range.name) + " field \"" + std::string(text) + "\": " + why,
        std::string(range.name));
  };
  bool restricted = false;
  for (std::string_view part : split(text, ',')) {
    int step = 1;
    std::string_view span = part;
    if (const auto slash = part.find('/'); slash != part.npos) {
      span = part.substr(0, slash);
      const std::string_view stepText = part.substr(slash + 1);
      const auto [end, ec] =
          std::from_chars(stepText.data(), stepText.data() + stepText.size(), step);
      if (ec != std::errc() || end != stepText.data() + stepText.size() || step < 1) {
        return bad("the step must be a positive integer");
      }
    }
    int low = range.min;
    int high = range.max;
    if (span == "*" || span == "?") {
      if (step != 1) restricted = true;
    } else {
      restricted = true;
      const auto dash = span.find('-');
      auto lo = value(span.substr(0, dash), range);
      auto hi = dash == span.npos ? lo : value(span.substr(dash + 1), range);
      if (!lo || !hi) return bad("want a number or a range such as 1-5");
      low = *lo;
      high = dash == span.npos && step != 1 ? range.max : *hi;
      const int max = range.name == "day-of-week" ? 7 : range.max;
      if (low < range.min || high > max || low > high) {
        return bad("values must be in " + std::to_string(range.min) + "-" +
                   std::to_string(range.max) + " and ranges ascending");
      }
    }
    for (int v = low; v <= high; v += step)
      bits.set(static_cast<std::size_t>(v % static_cast<int>(N)));
  }
  return restricted;
}

std::string_view expandMacro(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return text;
}

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view text) {
  std::vector<std::string_view> fields;
  for (std::string_view f : split(expandMacro(text), ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  if (fields.size() != 5) {
    return fail(ErrorCode::kInvalidArgument,
                "want five fields (minute hour day-of-month month day-of-week) or a macro such "
                "as @hourly, got \"" +
                    std::string(text) + "\"");
  }
  CronSchedule s;
  auto minutes = parseField(fields[0], {"minute", 0, 59, nullptr}, s.minutes_);
  if (!minutes) return std::unexpected(minutes.error());
  auto hours = parseField(fields[1], {"hour", 0, 23, nullptr}, s.hours_);
  if (!hours) return std::unexpected(hours.error());
  auto dom = parseField(fields[2], {"day-of-month", 1, 31, nullptr}, s.daysOfMonth_);
  if (!dom) return std::unexpected(dom.error());
  auto months = parseField(fields[3], {"month", 1, 12, &kMonthNames}, s.months_);
  if (!months) return std::unexpected(months.error());
  auto dow = parseField(fields[4], {"day-of-week", 0, 6, &kDayNames}, s.daysOfWeek_);
  if (!dow) return std::unexpected(dow.error());
  s.daysOfMonthRestricted_ = *dom;
  s.daysOfWeekRestricted_ = *dow;
  return s;
}

bool CronSchedule::dayMatches(int dayOfMonth, int month, int dayOfWeek) const {
  if (!months_.test(static_cast<std::size_t>(month))) return false;
  const bool dom = daysOfMonth_.test(static_cast<std::size_t>(dayOfMonth));
  const bool dow = daysOfWeek_.test(static_cast<std::size_t>(dayOfWeek));
  if (daysOfMonthRestricted_ && daysOfWeekRestricted_) return dom || dow;
  return dom && dow;
}

Time CronSchedule::next(Time t) const {
  using namespace std::chrono;
  const auto start = floor<minutes>(t) + minutes(1);
  auto day = floor<days>(start);
  const auto limit = day + days(5 * 366);
  for (; day < limit; day += days(1)) {
    const year_month_day ymd(day);
    const int dow = static_cast<int>(weekday(day).c_encoding());
    if (!dayMatches(static_cast<int>(static_cast<unsigned>(ymd.day())),
                    static_cast<int>(static_cast<unsigned>(ymd.month())), dow)) {
      continue;
    }
    for (int h = 0; h < 24; ++h) {
      if (!hours_.test(static_cast<std::size_t>(h))) continue;
      for (int m = 0; m < 60; ++m) {
        if (!minutes_.test(static_cast<std::size_t>(m))) continue;
        const auto candidate = day + hours(h) + minutes(m);
        if (candidate >= start) return Time(candidate);
      }
    }
  }
  return Time::max();
}

}  // namespace attune::sim
