// Kubernetes resource.Quantity: parse and canonical format with the API server's semantics.
//
// Grammar (k8s.io/apimachinery/pkg/api/resource):
//   quantity  ::= [sign] number [suffix]
//   number    ::= digits | digits "." [digits] | "." digits
//   suffix    ::= binarySI (Ki Mi Gi Ti Pi Ei) | decimalSI (n u m "" k M G T P E)
//               | ("e" | "E") [sign] digits
// Values finer than a nano-unit are rounded up (away from zero) to 1n, as the API server does.
// Unlike the API server, which silently caps huge values, a magnitude above 2^63-1 units is
// rejected with kOutOfRange.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/units.h"

namespace attune {

// The notation a quantity was written in; canonical formatting keeps it where it is exact.
enum class QuantityFormat {
  kDecimalSI,        // 1500m, 2k, 3G
  kBinarySI,         // 512Mi, 2Gi
  kDecimalExponent,  // 1e3, 15e-1
};

class Quantity {
 public:
  constexpr Quantity() = default;

  // Parses `text`; the error names the offending text and why it is not a quantity.
  static Result<Quantity> parse(std::string_view text);

  static Quantity fromMillicores(Millicores m);
  static Quantity fromBytes(Bytes b, QuantityFormat format = QuantityFormat::kBinarySI);
  // value × 10^-9 units in the given format.
  static Quantity fromNanos(__int128 nanos, QuantityFormat format);

  // The canonical string the API server would return for this quantity.
  std::string toString() const;

  // The value in millicores, rounded up (away from zero) to a whole millicore.
  Millicores toMillicores() const;
  // The value in bytes (whole units), rounded up (away from zero).
  Bytes toBytes() const;

  // Exact value in nano-units (10^-9). |nanos| ≤ (2^63-1)·10^9.
  __int128 nanos() const { return nanos_; }
  QuantityFormat format() const { return format_; }
  bool isZero() const { return nanos_ == 0; }
  int sign() const { return nanos_ < 0 ? -1 : (nanos_ > 0 ? 1 : 0); }

  // Comparison is by value only: "1" == "1000m".
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }
  friend auto operator<=>(const Quantity& a, const Quantity& b) { return a.nanos_ <=> b.nanos_; }

 private:
  constexpr Quantity(__int128 nanos, QuantityFormat format) : nanos_(nanos), format_(format) {}

  __int128 nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

// Parses a CPU quantity ("250m", "1.5", "2") to millicores, rounding up. Negative values are
// rejected: a resource amount is never below zero.
Result<Millicores> parseCpu(std::string_view text);
// Parses a memory quantity ("512Mi", "1G", "1e9") to bytes, rounding up. Negatives rejected.
Result<Bytes> parseMemory(std::string_view text);

// Canonical Kubernetes strings: formatCpu(1500m) == "1500m", formatCpu(2000m) == "2";
// formatMemory(512Mi) == "512Mi", formatMemory(1000) == "1k" (below 1Ki: decimal SI).
std::string formatCpu(Millicores m);
std::string formatMemory(Bytes b);

}  // namespace attune
