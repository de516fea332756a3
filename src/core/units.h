// Strong units for resources: CPU in millicores, memory in bytes. They convert to each other and
// to raw integers only explicitly, so a CPU value can never be passed where bytes are expected.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace attune {

template <typename Tag>
class ResourceAmount {
 public:
  constexpr ResourceAmount() = default;
  constexpr explicit ResourceAmount(std::int64_t value) : value_(value) {}

  constexpr std::int64_t value() const { return value_; }

  static constexpr ResourceAmount max() {
    return ResourceAmount(std::numeric_limits<std::int64_t>::max());
  }

  constexpr auto operator<=>(const ResourceAmount&) const = default;

  constexpr ResourceAmount operator+(ResourceAmount o) const {
    return ResourceAmount(value_ + o.value_);
  }
  constexpr ResourceAmount operator-(ResourceAmount o) const {
    return ResourceAmount(value_ - o.value_);
  }
  constexpr ResourceAmount& operator+=(ResourceAmount o) {
    value_ += o.value_;
    return *this;
  }
  constexpr ResourceAmount& operator-=(ResourceAmount o) {
    value_ -= o.value_;
    return *this;
  }

 private:
  std::int64_t value_ = 0;
};

struct MillicoresTag {};
struct BytesTag {};

// CPU in thousandths of a core (Kubernetes "m").
using Millicores = ResourceAmount<MillicoresTag>;
// Memory in bytes.
using Bytes = ResourceAmount<BytesTag>;

// CPU cores as a double (for statistics and display; resources themselves stay integral).
constexpr double toCores(Millicores m) { return static_cast<double>(m.value()) / 1000.0; }

namespace literals {
constexpr Millicores operator""_m(unsigned long long v) {
  return Millicores(static_cast<std::int64_t>(v));
}
constexpr Bytes operator""_B(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v)); }
constexpr Bytes operator""_Ki(unsigned long long v) {
  return Bytes(static_cast<std::int64_t>(v) << 10);
}
constexpr Bytes operator""_Mi(unsigned long long v) {
  return Bytes(static_cast<std::int64_t>(v) << 20);
}
constexpr Bytes operator""_Gi(unsigned long long v) {
  return Bytes(static_cast<std::int64_t>(v) << 30);
}
}  // namespace literals

}  // namespace attune
