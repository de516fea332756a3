#include "core/time.h"

#include <cstdint>
#include <cstdio>
#include <limits>

namespace attune {
namespace {

bool readDigits(std::string_view s, std::size_t pos, std::size_t count, int& out) {
  if (pos + count > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

bool expect(std::string_view s, std::size_t pos, std::string_view chars) {
  return pos < s.size() && chars.find(s[pos]) != std::string_view::npos;
}

}  // namespace

Result<Time> parseRfc3339(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid RFC 3339 timestamp \"" + std::string(text) + "\": " + std::string(why));
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!readDigits(text, 0, 4, year) || !expect(text, 4, "-") || !readDigits(text, 5, 2, month) ||
      !expect(text, 7, "-") || !readDigits(text, 8, 2, day) || !expect(text, 10, "Tt ") ||
      !readDigits(text, 11, 2, hour) || !expect(text, 13, ":") ||
      !readDigits(text, 14, 2, minute) || !expect(text, 16, ":") ||
      !readDigits(text, 17, 2, second)) {
    return bad("expected YYYY-MM-DDTHH:MM:SS");
  }
  std::chrono::year_month_day ymd{std::chrono::year(year), std::chrono::month(unsigned(month)),
                                  std::chrono::day(unsigned(day))};
  if (!ymd.ok()) return bad("no such date");
  if (hour > 23 || minute > 59 || second > 59) return bad("time of day out of range");
  std::size_t pos = 19;
  std::int64_t fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) {
        fraction = fraction * 10 + (text[pos] - '0');
        ++digits;
      }
      ++pos;
    }
    if (digits == 0) return bad("empty fractional seconds");
    for (int i = digits; i < 9; ++i) fraction *= 10;
  }
  int offsetMinutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (expect(text, pos, "+-")) {
    int oh = 0, om = 0;
    if (!readDigits(text, pos + 1, 2, oh) || !expect(text, pos + 3, ":") ||
        !readDigits(text, pos + 4, 2, om) || oh > 23 || om > 59) {
      return bad("bad zone offset");
    }
    offsetMinutes = (oh * 60 + om) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad("missing zone (Z or ±HH:MM)");
  }
  if (pos != text.size()) return bad("trailing characters");
  // Whole seconds first: nanoseconds since 1970 in 64 bits only reach the years 1678–2261.
  std::chrono::sys_seconds secs = std::chrono::sys_days(ymd) + std::chrono::hours(hour) +
                                  std::chrono::minutes(minute) + std::chrono::seconds(second) -
                                  std::chrono::minutes(offsetMinutes);
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
  std::int64_t count = secs.time_since_epoch().count();
  if (count > kMaxSeconds || count < -kMaxSeconds) {
    return fail(ErrorCode::kOutOfRange, "RFC 3339 timestamp \"" + std::string(text) +
                                            "\" is outside the supported years 1678-2261");
  }
  return Time(std::chrono::duration_cast<Duration>(secs.time_since_epoch()) +
              std::chrono::nanoseconds(fraction));
}

std::string formatRfc3339(Time t, int fractionDigits) {
  auto days = std::chrono::floor<std::chrono::days>(t);
  std::chrono::year_month_day ymd{days};
  std::chrono::hh_mm_ss<std::chrono::nanoseconds> hms{t - days};
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", int(ymd.year()),
                        unsigned(ymd.month()), unsigned(ymd.day()), int(hms.hours().count()),
                        int(hms.minutes().count()), int(hms.seconds().count()));
  std::string out(buf, static_cast<std::size_t>(n));
  if (fractionDigits > 0) {
    fractionDigits = std::min(fractionDigits, 9);
    std::snprintf(buf, sizeof buf, "%09lld", static_cast<long long>(hms.subseconds().count()));
    out += '.';
    out.append(buf, static_cast<std::size_t>(fractionDigits));
  }
  out += 'Z';
  return out;
}

}  // namespace attune
