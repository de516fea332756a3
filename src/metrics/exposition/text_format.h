// The Prometheus text exposition format 0.0.4: escaping and sample lines, shared by every
// producer of /metrics output (the operator's registry, the simulator's exporters).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace attune::metrics {

using LabelPair = std::pair<std::string_view, std::string_view>;

// A label value with backslash, double quote and newline escaped as the format requires.
std::string escapeLabelValue(std::string_view value);
// HELP text with backslash and newline escaped.
std::string escapeHelp(std::string_view help);
// A sample value: integers without a fraction, "+Inf", "-Inf", "NaN", otherwise the shortest
// text that reads back to the same double.
std::string formatSampleValue(double value);

// Appends `# HELP name help` and `# TYPE name type` lines.
void appendFamilyHeader(std::string& out, std::string_view name, std::string_view help,
                        std::string_view type);
// Appends `name{l1="v1",...} value\n` (no braces when `labels` is empty).
void appendSample(std::string& out, std::string_view name, std::span<const LabelPair> labels,
                  double value);

}  // namespace attune::metrics
