// Reader of the Attune CSV trace format: long form, one row per container per timestamp,
// comma-separated, no quoting. Columns are identified by the header row (any order); the
// required ones are
//   timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,
//   memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit
// and the optional ones psi_cpu_waiting_rate, cpu_throttle_ratio, restarts, oom_killed.
// The full specification is docs/trace-format.md.
#pragma once

#include <string_view>

#include "core/error.h"
#include "metrics/trace/line_reader.h"
#include "metrics/trace/trace_data.h"

namespace attune::metrics {

// True if `header` (a file's first line) looks like an Attune CSV header: one of its
// comma-separated names is "timestamp".
bool isAttuneCsvHeader(std::string_view header);

// Reads the rows of `lines` after `header` (already read from it) into `into`. A malformed
// header or row is a kInvalidArgument naming the file, the line and the column.
Result<void> readAttuneCsvRows(LineReader& lines, std::string_view header, TraceData& into);

}  // namespace attune::metrics
