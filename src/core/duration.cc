// Go time.ParseDuration semantics, and a compact formatter whose output Go parses back.
#include <array>
#include <cstdint>
#include <limits>

#include "core/time.h"

namespace attune {
namespace {

constexpr std::uint64_t kNs = 1;
constexpr std::uint64_t kUs = 1000 * kNs;
constexpr std::uint64_t kMs = 1000 * kUs;
constexpr std::uint64_t kSec = 1000 * kMs;
constexpr std::uint64_t kMin = 60 * kSec;
constexpr std::uint64_t kHour = 60 * kMin;
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

struct Unit {
  std::string_view name;
  std::uint64_t nanos;
};
constexpr std::array<Unit, 8> kUnits{{
    {"ns", kNs},
    {"us", kUs},
    {"\xC2\xB5s", kUs},  // U+00B5 micro sign
    {"\xCE\xBCs", kUs},  // U+03BC Greek mu
    {"ms", kMs},
    {"s", kSec},
    {"m", kMin},
    {"h", kHour},
}};

bool isDecimalDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<Duration> parseDuration(std::string_view text) {
  const std::string quotedText = "\"" + std::string(text) + "\"";
  auto invalid = [&](std::string why) {
    return fail(ErrorCode::kInvalidArgument, "invalid duration " + quotedText + ": " + why);
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return invalid("expected a number with a unit, such as 300ms, 5m or 1h30m");
  std::uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || isDecimalDigit(s[0]))) return invalid("expected a number");
    // Integer part.
    std::uint64_t whole = 0;
    bool pre = false;
    while (!s.empty() && isDecimalDigit(s[0])) {
      if (whole > (kSignBit - 1) / 10) return invalid("overflows the int64 nanosecond range");
      whole = whole * 10 + static_cast<std::uint64_t>(s[0] - '0');
      if (whole > kSignBit) return invalid("overflows the int64 nanosecond range");
      s.remove_prefix(1);
      pre = true;
    }
    // Fraction: digits past what fits are ignored, as Go does.
    std::uint64_t frac = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflowed = false;
      while (!s.empty() && isDecimalDigit(s[0])) {
        post = true;
        if (!overflowed) {
          if (frac > (kSignBit - 1) / 10) {
            overflowed = true;
          } else {
            std::uint64_t next = frac * 10 + static_cast<std::uint64_t>(s[0] - '0');
            if (next > kSignBit) {
              overflowed = true;
            } else {
              frac = next;
              scale *= 10;
            }
          }
        }
        s.remove_prefix(1);
      }
    }
    if (!pre && !post) return invalid("expected digits before or after '.'");
    std::size_t unitLen = 0;
    while (unitLen < s.size() && s[unitLen] != '.' && !isDecimalDigit(s[unitLen])) ++unitLen;
    if (unitLen == 0) return invalid("missing unit (one of ns, us, ms, s, m, h)");
    std::string_view unitName = s.substr(0, unitLen);
    s.remove_prefix(unitLen);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (u.name == unitName) unit = &u;
    }
    if (unit == nullptr) {
      return invalid("unknown unit \"" + std::string(unitName) + "\" (use ns, us, ms, s, m or h)");
    }
    if (whole > kSignBit / unit->nanos) return invalid("overflows the int64 nanosecond range");
    std::uint64_t v = whole * unit->nanos;
    if (frac > 0) {
      v += static_cast<std::uint64_t>(static_cast<double>(frac) *
                                      (static_cast<double>(unit->nanos) / scale));
      if (v > kSignBit) return invalid("overflows the int64 nanosecond range");
    }
    total += v;
    if (total > kSignBit) return invalid("overflows the int64 nanosecond range");
  }
  if (negative) {
    return Duration(static_cast<std::int64_t>(0 - total));  // -2^63 is representable
  }
  if (total > kSignBit - 1) return invalid("overflows the int64 nanosecond range");
  return Duration(static_cast<std::int64_t>(total));
}

namespace {

// Appends `v / unit` with its nonzero fraction digits, e.g. (1500, 1000) → "1.5".
void appendFixed(std::string& out, std::uint64_t v, std::uint64_t unit) {
  out += std::to_string(v / unit);
  std::uint64_t rem = v % unit;
  if (rem == 0) return;
  std::string digits;
  for (std::uint64_t u = unit / 10; u > 0; u /= 10) {
    digits += static_cast<char>('0' + (rem / u) % 10);
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  out += '.';
  out += digits;
}

}  // namespace

std::string formatDuration(Duration d) {
  std::int64_t n = d.count();
  if (n == 0) return "0s";
  std::string out;
  std::uint64_t u = static_cast<std::uint64_t>(n);
  if (n < 0) {
    out += '-';
    u = 0 - u;
  }
  if (u < kSec) {
    if (u < kUs) {
      appendFixed(out, u, kNs);
      out += "ns";
    } else if (u < kMs) {
      appendFixed(out, u, kUs);
      out += "us";
    } else {
      appendFixed(out, u, kMs);
      out += "ms";
    }
    return out;
  }
  if (u >= kHour) {
    out += std::to_string(u / kHour) + "h";
    u %= kHour;
  }
  if (u >= kMin) {
    out += std::to_string(u / kMin) + "m";
    u %= kMin;
  }
  if (u > 0) {
    appendFixed(out, u, kSec);
    out += "s";
  }
  return out;
}

}  // namespace attune
