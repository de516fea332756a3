#include "metrics/trace/trace_files.h"

#include <algorithm>
#include <string>
#include <system_error>

#include "metrics/trace/attune_csv_reader.h"
#include "metrics/trace/bitbrains_reader.h"
#include "metrics/trace/line_reader.h"

namespace attune::metrics {
namespace {

bool isTraceFileName(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(".csv") || name.ends_with(".csv.gz");
}

// The files a path stands for: itself, or the trace files of a directory in name order.
Result<std::vector<std::filesystem::path>> expand(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return std::vector{path};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    if (entry.is_regular_file(ec) && isTraceFileName(entry.path())) files.push_back(entry.path());
  }
  if (ec) return fail(ErrorCode::kNotFound, path.string() + ": " + ec.message());
  if (files.empty()) {
    return fail(ErrorCode::kNotFound, path.string() + ": no trace files (*.csv, *.csv.gz)");
  }
  std::sort(files.begin(), files.end());
  return files;
}

Result<void> readTraceFile(const std::filesystem::path& path, std::string_view bitbrainsNamespace,
                           TraceData& into) {
  auto lines = LineReader::open(path);
  if (!lines) return std::unexpected(lines.error());
  std::string header;
  auto read = lines->next(header);
  if (!read) return std::unexpected(read.error());
  if (!*read) return fail(ErrorCode::kInvalidArgument, path.string() + ": empty file");
  if (isBitbrainsHeader(header)) {
    return readBitbrainsRows(*lines, bitbrainsVmId(path), bitbrainsNamespace, into);
  }
  if (isAttuneCsvHeader(header)) return readAttuneCsvRows(*lines, header, into);
  return lines->error(
      "unrecognised header: want Bitbrains GWA-T-12 (\"Timestamp [ms];\\t...\") or Attune CSV "
      "(\"timestamp,namespace,...\")");
}

}  // namespace

Result<TraceData> readTraceFiles(const std::vector<std::filesystem::path>& paths,
                                 std::string_view bitbrainsNamespace) {
  TraceData data;
  for (const auto& path : paths) {
    auto files = expand(path);
    if (!files) return std::unexpected(files.error());
    for (const auto& file : *files) {
      if (auto read = readTraceFile(file, bitbrainsNamespace, data); !read) {
        return std::unexpected(read.error());
      }
    }
  }
  data.finalize();
  return data;
}

}  // namespace attune::metrics
