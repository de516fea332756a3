#include "metrics/trace/bitbrains_reader.h"

#include <array>
#include <cmath>

#include "metrics/trace/csv_fields.h"

namespace attune::metrics {
namespace {

constexpr std::size_t kFieldCount = 11;
constexpr double kBytesPerKb = 1024;

enum Column : std::size_t {
  kTimestamp = 0,
  kCores = 1,
  kCapacityMhz = 2,
  kUsageMhz = 3,
  kMemoryCapacityKb = 5,
  kMemoryUsageKb = 6,
};

// Column names as in the file's header, for messages.
constexpr std::array<std::string_view, kFieldCount> kColumnNames = {
    "Timestamp",
    "CPU cores",
    "CPU capacity provisioned [MHZ]",
    "CPU usage [MHZ]",
    "CPU usage [%]",
    "Memory capacity provisioned [KB]",
    "Memory usage [KB]",
    "Disk read throughput [KB/s]",
    "Disk write throughput [KB/s]",
    "Network received throughput [KB/s]",
    "Network transmitted throughput [KB/s]"};

struct Row {
  Time time;
  double cores = 0;
  double capacityMhz = 0;
  double usageMhz = 0;
  double memoryCapacityKb = 0;
  double memoryUsageKb = 0;
};

Result<Row> parseRow(const LineReader& lines, std::string_view line) {
  const auto fields = splitFields(line, ';');
  if (fields.size() != kFieldCount) {
    return lines.error("expected " + std::to_string(kFieldCount) + " fields, got " +
                       std::to_string(fields.size()));
  }
  Row row;
  auto time = parseTimestamp(fields[kTimestamp]);
  if (!time)
    return lines.error(std::string(kColumnNames[kTimestamp]) + ": " + time.error().message);
  row.time = *time;
  const std::array<std::pair<Column, double*>, 5> numbers = {{
      {kCores, &row.cores},
      {kCapacityMhz, &row.capacityMhz},
      {kUsageMhz, &row.usageMhz},
      {kMemoryCapacityKb, &row.memoryCapacityKb},
      {kMemoryUsageKb, &row.memoryUsageKb},
  }};
  for (const auto& [column, target] : numbers) {
    auto value = parseMeasurement(fields[column]);
    if (!value)
      return lines.error(std::string(kColumnNames[column]) + ": " + value.error().message);
    *target = *value;
  }
  return row;
}

bool usable(const Row& row) {
  return row.cores > 0 && row.capacityMhz > 0 && std::isfinite(row.cores) &&
         std::isfinite(row.capacityMhz);
}

void append(const Row& row, ContainerTrace& trace) {
  const double coresUsed = row.usageMhz / (row.capacityMhz / row.cores);
  if (std::isfinite(coresUsed)) trace.cpuUsage.push_back({row.time, coresUsed});
  if (std::isfinite(row.memoryUsageKb)) {
    trace.memoryWorkingSet.push_back({row.time, row.memoryUsageKb * kBytesPerKb});
  }
  api::ResourceValues state;
  state.cpuRequest = Millicores(std::llround(row.cores * 1000));
  if (std::isfinite(row.memoryCapacityKb) && row.memoryCapacityKb > 0) {
    state.memoryRequest = Bytes(std::llround(row.memoryCapacityKb * kBytesPerKb));
  }
  trace.resources.push_back({row.time, state});
}

}  // namespace

bool isBitbrainsHeader(std::string_view header) {
  return header.starts_with("Timestamp") && splitFields(header, ';').size() == kFieldCount;
}

std::string bitbrainsVmId(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  for (std::string_view suffix : {".gz", ".csv"}) {
    if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  return name;
}

Result<void> readBitbrainsRows(LineReader& lines, std::string_view vmId, std::string_view ns,
                               TraceData& into) {
  const std::string name = "vm-" + std::string(vmId);
  auto trace = into.container(ContainerId{std::string(ns), name + "-0", "main"},
                              api::WorkloadRef{std::string(ns), "Deployment", name});
  if (!trace) return lines.error(trace.error().message);
  return lines.forEachLine([&](std::string_view line) -> Result<void> {
    auto row = parseRow(lines, line);
    if (!row) return std::unexpected(row.error());
    if (usable(*row)) {
      append(*row, **trace);
    } else {
      into.countSkippedRow();
    }
    return {};
  });
}

}  // namespace attune::metrics
