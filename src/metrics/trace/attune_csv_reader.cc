#include "metrics/trace/attune_csv_reader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/quantity.h"
#include "metrics/trace/csv_fields.h"

namespace attune::metrics {
namespace {

enum Column : std::size_t {
  kTimestamp,
  kNamespace,
  kWorkloadKind,
  kWorkload,
  kPod,
  kContainer,
  kCpuUsage,
  kMemoryWorkingSet,
  kCpuRequest,
  kCpuLimit,
  kMemoryRequest,
  kMemoryLimit,
  kRequiredCount,  // columns before this one are required
  kPsiCpuWaiting = kRequiredCount,
  kCpuThrottleRatio,
  kRestarts,
  kOomKilled,
  kColumnCount,
};

constexpr std::array<std::string_view, kColumnCount> kColumnNames = {"timestamp",
                                                                     "namespace",
                                                                     "workload_kind",
                                                                     "workload",
                                                                     "pod",
                                                                     "container",
                                                                     "cpu_usage_cores",
                                                                     "memory_working_set_bytes",
                                                                     "cpu_request",
                                                                     "cpu_limit",
                                                                     "memory_request",
                                                                     "memory_limit",
                                                                     "psi_cpu_waiting_rate",
                                                                     "cpu_throttle_ratio",
                                                                     "restarts",
                                                                     "oom_killed"};

// Where each column sits in a row; nullopt for an optional column the file does not have.
using Layout = std::array<std::optional<std::size_t>, kColumnCount>;

Result<Layout> parseHeader(const LineReader& lines, std::string_view header) {
  Layout layout;
  const auto names = splitFields(header, ',');
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto* known = std::find(kColumnNames.begin(), kColumnNames.end(), names[i]);
    if (known == kColumnNames.end()) {
      return lines.error("unknown column \"" + std::string(names[i]) + "\"");
    }
    auto& slot = layout[static_cast<std::size_t>(known - kColumnNames.begin())];
    if (slot) return lines.error("column " + std::string(names[i]) + " appears twice");
    slot = i;
  }
  for (std::size_t c = 0; c < kRequiredCount; ++c) {
    if (!layout[c]) return lines.error("missing column " + std::string(kColumnNames[c]));
  }
  return layout;
}

// One row being parsed: its fields and where the columns are; errors name file, line, column.
class RowParser {
 public:
  RowParser(const LineReader& lines, const Layout& layout, std::vector<std::string_view> fields)
      : lines_(lines), layout_(layout), fields_(std::move(fields)) {}

  std::string_view cell(Column c) const { return layout_[c] ? fields_[*layout_[c]] : ""; }

  std::unexpected<Error> error(Column c, std::string_view message) const {
    return lines_.error(std::string(kColumnNames[c]) + ": " + std::string(message));
  }

  Result<std::string> name(Column c) const {
    if (cell(c).empty()) return error(c, "must not be empty");
    return std::string(cell(c));
  }

  // Parses a non-empty cell with `parse`; an empty cell is nullopt.
  template <typename Parse>
  auto optional(Column c, Parse parse) const
      -> Result<std::optional<typename decltype(parse(std::string_view()))::value_type>> {
    if (cell(c).empty()) return std::nullopt;
    auto value = parse(cell(c));
    if (!value) return error(c, value.error().message);
    return *value;
  }

 private:
  const LineReader& lines_;
  const Layout& layout_;
  std::vector<std::string_view> fields_;
};

Result<bool> parseFlag(std::string_view text) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  return fail(ErrorCode::kInvalidArgument,
              "want 0, 1, true or false, got \"" + std::string(text) + "\"");
}

// Appends a measured value, dropping NaN and infinities as missing samples.
void appendFinite(std::vector<Point>& series, Time t, std::optional<double> value) {
  if (value && std::isfinite(*value)) series.push_back({t, *value});
}

#define ATTUNE_TRY_ASSIGN(var, expr)                               \
  auto var##_result = (expr);                                      \
  if (!var##_result) return std::unexpected(var##_result.error()); \
  auto var = std::move(*var##_result)

Result<void> parseRow(const RowParser& row, TraceData& into) {
  ATTUNE_TRY_ASSIGN(time, row.optional(kTimestamp, parseTimestamp));
  if (!time) return row.error(kTimestamp, "must not be empty");
  ATTUNE_TRY_ASSIGN(ns, row.name(kNamespace));
  ATTUNE_TRY_ASSIGN(kind, row.name(kWorkloadKind));
  ATTUNE_TRY_ASSIGN(workload, row.name(kWorkload));
  ATTUNE_TRY_ASSIGN(pod, row.name(kPod));
  ATTUNE_TRY_ASSIGN(container, row.name(kContainer));
  ATTUNE_TRY_ASSIGN(cpu, row.optional(kCpuUsage, parseMeasurement));
  ATTUNE_TRY_ASSIGN(memory, row.optional(kMemoryWorkingSet, parseMeasurement));
  ATTUNE_TRY_ASSIGN(psi, row.optional(kPsiCpuWaiting, parseMeasurement));
  ATTUNE_TRY_ASSIGN(throttle, row.optional(kCpuThrottleRatio, parseMeasurement));
  ATTUNE_TRY_ASSIGN(restarts, row.optional(kRestarts, parseCount));
  ATTUNE_TRY_ASSIGN(oom, row.optional(kOomKilled, parseFlag));
  ATTUNE_TRY_ASSIGN(cpuRequest, row.optional(kCpuRequest, parseCpu));
  ATTUNE_TRY_ASSIGN(cpuLimit, row.optional(kCpuLimit, parseCpu));
  ATTUNE_TRY_ASSIGN(memoryRequest, row.optional(kMemoryRequest, parseMemory));
  ATTUNE_TRY_ASSIGN(memoryLimit, row.optional(kMemoryLimit, parseMemory));
  if (throttle && *throttle > 1) return row.error(kCpuThrottleRatio, "must be in [0, 1]");
  const bool oomKilled = oom.value_or(false);
  if (oomKilled && !(memory && std::isfinite(*memory))) {
    return row.error(kOomKilled, "needs memory_working_set_bytes in the same row");
  }

  auto trace =
      into.container(ContainerId{ns, pod, container}, api::WorkloadRef{ns, kind, workload});
  if (!trace) return row.error(kWorkload, trace.error().message);
  ContainerTrace& c = **trace;
  appendFinite(c.cpuUsage, *time, cpu);
  appendFinite(c.memoryWorkingSet, *time, memory);
  appendFinite(c.psiCpuWaiting, *time, psi);
  appendFinite(c.cpuThrottleRatio, *time, throttle);
  c.resources.push_back(
      {*time, api::ResourceValues{cpuRequest, cpuLimit, memoryRequest, memoryLimit}});
  if (restarts) c.restarts.push_back({*time, *restarts});
  if (oomKilled) c.oomKills.push_back({*time, Bytes(std::llround(*memory))});
  return {};
}

#undef ATTUNE_TRY_ASSIGN

}  // namespace

bool isAttuneCsvHeader(std::string_view header) {
  const auto names = splitFields(header, ',');
  return std::find(names.begin(), names.end(), kColumnNames[kTimestamp]) != names.end();
}

Result<void> readAttuneCsvRows(LineReader& lines, std::string_view header, TraceData& into) {
  auto layout = parseHeader(lines, header);
  if (!layout) return std::unexpected(layout.error());
  const std::size_t width = splitFields(header, ',').size();
  return lines.forEachLine([&](std::string_view line) -> Result<void> {
    auto fields = splitFields(line, ',');
    if (fields.size() != width) {
      return lines.error("expected " + std::to_string(width) + " fields, got " +
                         std::to_string(fields.size()));
    }
    return parseRow(RowParser(lines, *layout, std::move(fields)), into);
  });
}

}  // namespace attune::metrics
