#include "metrics/exposition/text_format.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace attune::metrics {
namespace {

std::string escape(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escapeLabelValue(std::string_view value) { return escape(value, true); }
std::string escapeHelp(std::string_view help) { return escape(help, false); }

std::string formatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "NaN";
  return std::string(buffer, end);
}

void appendFamilyHeader(std::string& out, std::string_view name, std::string_view help,
                        std::string_view type) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += escapeHelp(help);
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void appendSample(std::string& out, std::string_view name, std::span<const LabelPair> labels,
                  double value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    bool first = true;
    for (const auto& [label, labelValue] : labels) {
      if (!first) out += ',';
      first = false;
      out += label;
      out += "=\"";
      out += escapeLabelValue(labelValue);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  out += formatSampleValue(value);
  out += '\n';
}

}  // namespace attune::metrics
