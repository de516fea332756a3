#include "core/quantity.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace attune {
namespace {

using i128 = __int128;

constexpr i128 kNanosPerUnit = 1'000'000'000;
constexpr i128 kMaxNanos =
    static_cast<i128>(std::numeric_limits<std::int64_t>::max()) * kNanosPerUnit;
// More significant digits than this are rejected (values are held exactly in 128 bits).
constexpr int kMaxSignificantDigits = 38;

struct Suffix {
  int base = 10;  // 10 or 2
  int exponent = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

constexpr std::array<std::pair<std::string_view, int>, 10> kDecimalSuffixes{{
    {"n", -9},
    {"u", -6},
    {"m", -3},
    {"", 0},
    {"k", 3},
    {"M", 6},
    {"G", 9},
    {"T", 12},
    {"P", 15},
    {"E", 18},
}};
constexpr std::array<std::pair<std::string_view, int>, 6> kBinarySuffixes{{
    {"Ki", 10},
    {"Mi", 20},
    {"Gi", 30},
    {"Ti", 40},
    {"Pi", 50},
    {"Ei", 60},
}};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

Result<Suffix> interpretSuffix(std::string_view text, std::string_view suffix) {
  for (const auto& [name, exp] : kDecimalSuffixes) {
    if (suffix == name) return Suffix{10, exp, QuantityFormat::kDecimalSI};
  }
  for (const auto& [name, exp] : kBinarySuffixes) {
    if (suffix == name) return Suffix{2, exp, QuantityFormat::kBinarySI};
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    bool negative = false;
    if (digits.front() == '+' || digits.front() == '-') {
      negative = digits.front() == '-';
      digits.remove_prefix(1);
    }
    if (!digits.empty() && digits.size() <= 9 &&
        std::all_of(digits.begin(), digits.end(), isDigit)) {
      int exp = 0;
      for (char c : digits) exp = exp * 10 + (c - '0');
      return Suffix{10, negative ? -exp : exp, QuantityFormat::kDecimalExponent};
    }
  }
  return fail(ErrorCode::kInvalidArgument,
              "invalid quantity " + quoted(text) + ": unknown suffix " + quoted(suffix) +
                  " (expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei, or an exponent such "
                  "as e3)");
}

using u128 = unsigned __int128;

// 10^n for 0 ≤ n ≤ 38.
u128 pow10(int n) {
  u128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

// Returns ceil(m × 2^exp2 × 10^exp10) exactly, or nullopt when it exceeds kMaxNanos.
// Requires m < 10^38 and 0 ≤ exp2 ≤ 60.
std::optional<u128> scaleRoundingUp(u128 m, int exp2, int exp10) {
  const u128 limit = static_cast<u128>(kMaxNanos);
  if (m == 0) return u128{0};
  if (exp10 >= 0) {
    if (exp10 > 38) return std::nullopt;
    u128 factor = pow10(exp10);
    if (m > limit / factor) return std::nullopt;
    m *= factor;
    for (int i = 0; i < exp2; ++i) {
      if (m > limit / 2) return std::nullopt;
      m *= 2;
    }
    return m;
  }
  // Divide by 10^k in two stages (10^38 fits, larger powers do not), doubling in between by
  // long division so that m × 2^exp2 never has to be formed.
  const int k = -exp10;
  const u128 p = pow10(std::min(k, 38));
  u128 q = m / p;
  u128 r = m % p;
  for (int i = 0; i < exp2; ++i) {
    q *= 2;
    r *= 2;  // r < p ≤ 10^38 < 2^127
    if (r >= p) {
      r -= p;
      ++q;
    }
    // Below the limit q·2 cannot wrap; past it (with no later division) the value is too large.
    if (k <= 38 && q > limit) return std::nullopt;
  }
  bool inexact = r != 0;
  if (k > 38) {
    if (k - 38 > 38) {
      inexact = inexact || q != 0;
      q = 0;
    } else {
      u128 p2 = pow10(k - 38);
      inexact = inexact || q % p2 != 0;
      q /= p2;
    }
  }
  if (inexact) ++q;
  if (q > limit) return std::nullopt;
  return q;
}

std::string toDecimalString(i128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string out;
  while (u > 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

std::string canonicalDecimal(i128 nanos, QuantityFormat format) {
  i128 mantissa = nanos;
  int exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  switch (exponent % 3) {
    case 1:
    case -2:
      mantissa *= 10;
      exponent -= 1;
      break;
    case 2:
    case -1:
      mantissa *= 100;
      exponent -= 2;
      break;
    default:
      break;
  }
  std::string out = toDecimalString(mantissa);
  if (format == QuantityFormat::kDecimalExponent) {
    if (exponent != 0) out += "e" + std::to_string(exponent);
    return out;
  }
  for (const auto& [name, exp] : kDecimalSuffixes) {
    if (exp == exponent) return out + std::string(name);
  }
  return out + "e" + std::to_string(exponent);  // unreachable for values within range
}

// Rounds nanos away from zero to a multiple of `step`, then divides by it.
i128 divideRoundingUp(i128 nanos, i128 step) {
  i128 q = nanos / step;
  if (nanos % step != 0) q += nanos > 0 ? 1 : -1;
  return q;
}

std::int64_t saturate(i128 v) {
  constexpr i128 kMax = std::numeric_limits<std::int64_t>::max();
  constexpr i128 kMin = std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(std::clamp(v, kMin, kMax));
}

}  // namespace

Result<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty()) return fail(ErrorCode::kInvalidArgument, "invalid quantity: empty string");
  std::size_t pos = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++pos;
  }
  // The digits of integer part and fraction as one integer, and how many were fraction digits.
  u128 mantissa = 0;
  int significant = 0;
  int fractionDigits = 0;
  bool anyDigit = false;
  bool inFraction = false;
  for (; pos < text.size(); ++pos) {
    char c = text[pos];
    if (c == '.' && !inFraction) {
      inFraction = true;
      continue;
    }
    if (!isDigit(c)) break;
    anyDigit = true;
    if (inFraction) ++fractionDigits;
    if (significant == 0 && c == '0') continue;  // leading zero
    if (++significant > kMaxSignificantDigits) {
      return fail(ErrorCode::kOutOfRange, "invalid quantity " + quoted(text) + ": more than " +
                                              std::to_string(kMaxSignificantDigits) +
                                              " significant digits");
    }
    mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
  }
  if (!anyDigit) {
    return fail(ErrorCode::kInvalidArgument, "invalid quantity " + quoted(text) +
                                                 ": expected a number such as 250m, 1.5 or 512Mi");
  }
  auto suffix = interpretSuffix(text, text.substr(pos));
  if (!suffix) return std::unexpected(suffix.error());

  // nanos = mantissa × 2^exp2 × 10^exp10, rounded up to an integer.
  const int exp2 = suffix->base == 2 ? suffix->exponent : 0;
  const int exp10 = 9 - fractionDigits + (suffix->base == 10 ? suffix->exponent : 0);
  auto nanos = scaleRoundingUp(mantissa, exp2, exp10);
  if (!nanos) {
    return fail(ErrorCode::kOutOfRange,
                "invalid quantity " + quoted(text) + ": magnitude exceeds 2^63-1");
  }
  i128 value = static_cast<i128>(*nanos);
  return Quantity(negative ? -value : value, suffix->format);
}

Quantity Quantity::fromMillicores(Millicores m) {
  return Quantity(static_cast<i128>(m.value()) * 1'000'000, QuantityFormat::kDecimalSI);
}

Quantity Quantity::fromBytes(Bytes b, QuantityFormat format) {
  return Quantity(static_cast<i128>(b.value()) * kNanosPerUnit, format);
}

Quantity Quantity::fromNanos(__int128 nanos, QuantityFormat format) {
  return Quantity(std::clamp(nanos, -kMaxNanos, kMaxNanos), format);
}

std::string Quantity::toString() const {
  if (nanos_ == 0) return "0";
  QuantityFormat format = format_;
  if (format == QuantityFormat::kBinarySI) {
    bool small = nanos_ > -1024 * kNanosPerUnit && nanos_ < 1024 * kNanosPerUnit;
    if (small || nanos_ % kNanosPerUnit != 0) format = QuantityFormat::kDecimalSI;
  }
  if (format != QuantityFormat::kBinarySI) return canonicalDecimal(nanos_, format);
  i128 units = nanos_ / kNanosPerUnit;
  int exponent = 0;
  while (exponent < 60 && units % 1024 == 0) {
    units /= 1024;
    exponent += 10;
  }
  std::string out = toDecimalString(units);
  for (const auto& [name, exp] : kBinarySuffixes) {
    if (exp == exponent) return out + std::string(name);
  }
  return out;
}

Millicores Quantity::toMillicores() const {
  return Millicores(saturate(divideRoundingUp(nanos_, 1'000'000)));
}

Bytes Quantity::toBytes() const { return Bytes(saturate(divideRoundingUp(nanos_, kNanosPerUnit))); }

namespace {
Result<Quantity> parseNonNegative(std::string_view text, std::string_view what) {
  auto q = Quantity::parse(text);
  if (!q) return q;
  if (q->sign() < 0) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid " + std::string(what) + " " + quoted(text) + ": must not be negative");
  }
  return q;
}
}  // namespace

Result<Millicores> parseCpu(std::string_view text) {
  auto q = parseNonNegative(text, "cpu quantity");
  if (!q) return std::unexpected(q.error());
  if (divideRoundingUp(q->nanos(), 1'000'000) > std::numeric_limits<std::int64_t>::max()) {
    return fail(ErrorCode::kOutOfRange,
                "invalid cpu quantity " + quoted(text) + ": exceeds 2^63-1 millicores");
  }
  return q->toMillicores();
}

Result<Bytes> parseMemory(std::string_view text) {
  auto q = parseNonNegative(text, "memory quantity");
  if (!q) return std::unexpected(q.error());
  return q->toBytes();
}

std::string formatCpu(Millicores m) { return Quantity::fromMillicores(m).toString(); }

std::string formatMemory(Bytes b) { return Quantity::fromBytes(b).toString(); }

}  // namespace attune
