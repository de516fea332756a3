// intstr.IntOrString: a field that holds either an integer or a string, such as a
// PodDisruptionBudget's minAvailable ("2" or "50%").
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace attune::api {

struct IntOrString {
  bool isString = false;
  std::int32_t intValue = 0;  // when !isString
  std::string stringValue;    // when isString

  static IntOrString ofInt(std::int32_t value) { return {false, value, {}}; }
  static IntOrString ofString(std::string value) { return {true, 0, std::move(value)}; }

  bool operator==(const IntOrString&) const = default;
};

// intstr.GetScaledValueFromIntOrPercent: an integer as is; a percentage "P%" of `total`,
// rounded up (ceil(P × total / 100)) when `roundUp`, down otherwise. kInvalidArgument for a
// string that is not an integer followed by "%". Pure.
Result<std::int32_t> scaledValue(const IntOrString& value, std::int32_t total, bool roundUp);

}  // namespace attune::api
