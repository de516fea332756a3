#include "api/yaml/yaml_scalar.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <span>

namespace attune::api::internal {
namespace {

constexpr std::array<std::string_view, 11> kTrueWords = {
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
constexpr std::array<std::string_view, 11> kFalseWords = {
    "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
constexpr std::array<std::string_view, 5> kNullWords = {"", "~", "null", "Null", "NULL"};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

bool contains(std::span<const std::string_view> words, std::string_view text) {
  return std::find(words.begin(), words.end(), text) != words.end();
}

std::string_view dropSign(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return text;
}

// Consumes a run of characters accepted by `accept`; returns how many were consumed.
template <typename Accept>
std::size_t consume(std::string_view& text, Accept accept) {
  std::size_t n = 0;
  while (n < text.size() && accept(text[n])) ++n;
  text.remove_prefix(n);
  return n;
}

// [-+]? ( digits ( "." digits? )? | "." digits ) ( [eE] [-+]? digits )?, with `_` allowed inside
// digit runs when `underscores` is set (YAML 1.1).
bool isDecimalNumber(std::string_view text, bool underscores, bool* hasFractionOrExponent) {
  text = dropSign(text);
  auto digit = [underscores](char c) { return isDigit(c) || (underscores && c == '_'); };
  bool fraction = false;
  std::size_t whole = (!text.empty() && isDigit(text.front())) ? consume(text, digit) : 0;
  std::size_t frac = 0;
  if (!text.empty() && text.front() == '.') {
    text.remove_prefix(1);
    fraction = true;
    frac = (!text.empty() && isDigit(text.front())) ? consume(text, digit) : 0;
  }
  if (whole == 0 && frac == 0) return false;
  if (!text.empty() && (text.front() == 'e' || text.front() == 'E')) {
    text.remove_prefix(1);
    text = dropSign(text);
    if (consume(text, isDigit) == 0) return false;
    fraction = true;
  }
  if (hasFractionOrExponent != nullptr) *hasFractionOrExponent = fraction;
  return text.empty();
}

bool isSpecialFloat(std::string_view text) {
  static constexpr std::array<std::string_view, 6> kWords = {".inf", ".Inf", ".INF",
                                                             ".nan", ".NaN", ".NAN"};
  return contains(kWords, dropSign(text));
}

bool isPrefixedInteger(std::string_view text) {
  text = dropSign(text);
  if (text.size() < 3 || text[0] != '0') return false;
  const char base = text[1];
  if (base != 'x' && base != 'X' && base != 'o' && base != 'b') return false;
  text.remove_prefix(2);
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// Digits in ':'-separated groups ("22:00", "1:30:15"): YAML 1.1 readers take them for base-60
// numbers.
bool isSexagesimal(std::string_view text) {
  if (text.find(':') == std::string_view::npos) return false;
  bool digit = false;
  for (char c : text) {
    if (c == ':') {
      if (!digit) return false;
      digit = false;
    } else if (c >= '0' && c <= '9') {
      digit = true;
    } else {
      return false;
    }
  }
  return digit;
}

}  // namespace

ScalarKind classifyPlain(std::string_view text) {
  if (contains(kNullWords, text)) return ScalarKind::kNull;
  if (contains(kTrueWords, text) || contains(kFalseWords, text)) return ScalarKind::kBool;
  bool fraction = false;
  if (isDecimalNumber(text, /*underscores=*/false, &fraction)) {
    return fraction ? ScalarKind::kFloat : ScalarKind::kInteger;
  }
  return ScalarKind::kString;
}

ScalarKind classify(const YAML::Node& node) {
  if (node.IsNull()) return ScalarKind::kNull;
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return ScalarKind::kString;
  return classifyPlain(node.Scalar());
}

bool plainBoolValue(std::string_view text) { return contains(kTrueWords, text); }

std::optional<double> numberValue(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

bool needsQuotes(std::string_view text) {
  const bool unsafeByte = std::any_of(text.begin(), text.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b < 0x20 || b >= 0x7F;
  });
  const bool edgeSpace = !text.empty() && (text.front() == ' ' || text.back() == ' ');
  return unsafeByte || edgeSpace || classifyPlain(text) != ScalarKind::kString ||
         isSpecialFloat(text) || isPrefixedInteger(text) ||
         isDecimalNumber(text, /*underscores=*/true, nullptr) || isSexagesimal(text);
}

bool isValidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    int extra = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr std::array<std::uint32_t, 4> kMinimum = {0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

std::string_view kindName(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kNull:
      return "null";
    case ScalarKind::kBool:
      return "boolean";
    case ScalarKind::kInteger:
      return "integer";
    case ScalarKind::kFloat:
      return "number";
    case ScalarKind::kString:
      return "string";
  }
  return "value";
}

}  // namespace attune::api::internal
