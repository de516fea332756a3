// Field-level parsing shared by the trace readers. Messages name the offending text but not the
// file, line or column; the readers add those.
#pragma once

#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/time.h"

namespace attune::metrics {

// Splits `line` at every `separator` and trims spaces and tabs around each field. An empty line
// yields one empty field.
std::vector<std::string_view> splitFields(std::string_view line, char separator);

// A measured value: a decimal number ("12", "0.5", "1e9") that is not negative. "nan" and "inf"
// are accepted and returned as is, so that callers can drop them as missing samples.
Result<double> parseMeasurement(std::string_view field);

// A non-negative decimal integer such as a restart count.
Result<std::int64_t> parseCount(std::string_view field);

// A timestamp: Unix seconds, with an optional fraction ("1372629804", "1372629804.25"), or
// RFC 3339 ("2013-07-01T00:03:24Z").
Result<Time> parseTimestamp(std::string_view field);

}  // namespace attune::metrics
