// Reader of the Bitbrains GWA-T-12 trace format (one VM per file, "N.csv" or "N.csv.gz"): a
// header row, then rows of 11 fields separated by ";" and a tab. See docs/trace-format.md.
//
// Each VM becomes one single-container workload: namespace `ns` (TraceOptions, "bitbrains" by
// default), Deployment "vm-<N>", pod "vm-<N>-0", container "main", where N is the file name
// without ".csv" / ".csv.gz". Per row:
//   cpu usage (cores)   = CPU usage [MHZ] / (CPU capacity provisioned [MHZ] / CPU cores)
//   memory working set  = Memory usage [KB] × 1024 bytes
//   cpu request         = CPU cores;  memory request = Memory capacity provisioned [KB] × 1024
//   limits              = unset
// Rows with zero (or non-positive) CPU cores or capacity are skipped and counted.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.h"
#include "metrics/trace/line_reader.h"
#include "metrics/trace/trace_data.h"

namespace attune::metrics {

// True if `header` (a file's first line) is a Bitbrains GWA-T-12 header.
bool isBitbrainsHeader(std::string_view header);

// The VM's number (or name) from its file name: "traces/7.csv.gz" → "7".
std::string bitbrainsVmId(const std::filesystem::path& path);

// Reads the rows after the header of `lines` (whose header was already read) into `into`, for the
// VM `vmId` in namespace `ns`. A malformed row is a kInvalidArgument naming file and line.
Result<void> readBitbrainsRows(LineReader& lines, std::string_view vmId, std::string_view ns,
                               TraceData& into);

}  // namespace attune::metrics
