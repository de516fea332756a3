// Loading trace files of either format into one TraceData.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "metrics/trace/trace_data.h"

namespace attune::metrics {

// Reads every path into one finalized TraceData. A path is a trace file or a directory, whose
// "*.csv" and "*.csv.gz" files (not recursive) are read in name order. Each file's format is
// recognised from its header row (Bitbrains GWA-T-12 or Attune CSV); Bitbrains VMs are placed in
// namespace `bitbrainsNamespace`. Errors: kNotFound for a missing path or a directory without
// trace files, kInvalidArgument for an unrecognised header or a malformed row (naming file and
// line).
Result<TraceData> readTraceFiles(const std::vector<std::filesystem::path>& paths,
                                 std::string_view bitbrainsNamespace);

}  // namespace attune::metrics
