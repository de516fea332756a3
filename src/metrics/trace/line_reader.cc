#include "metrics/trace/line_reader.h"

#include <zlib.h>

#include <system_error>
#include <utility>

namespace attune::metrics {
namespace {
constexpr unsigned kChunkBytes = 1u << 16;
}  // namespace

void LineReader::GzClose::operator()(gzFile_s* file) const { gzclose(file); }

LineReader::LineReader(gzFile_s* file, std::string name) : file_(file), name_(std::move(name)) {}

Result<LineReader> LineReader::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return fail(ErrorCode::kNotFound, path.string() + ": no such file");
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return fail(ErrorCode::kNotFound, path.string() + ": cannot open");
  gzbuffer(file, kChunkBytes);
  return LineReader(file, path.string());
}

Result<void> LineReader::fill() {
  buffer_.resize(kChunkBytes);
  const int n = gzread(file_.get(), buffer_.data(), kChunkBytes);
  // A truncated gzip stream is not fatal to gzread (Z_BUF_ERROR): it ends the data early and
  // leaves the error for gzerror, which is checked at the end of the data.
  int code = Z_OK;
  const char* what = n > 0 ? "" : gzerror(file_.get(), &code);
  if (n < 0 || code != Z_OK) {
    buffer_.clear();
    return fail(ErrorCode::kInvalidArgument,
                name_ + ":" + std::to_string(lineNumber_ + 1) + ": corrupt gzip data: " + what);
  }
  buffer_.resize(static_cast<std::size_t>(n));
  pos_ = 0;
  eof_ = n == 0;
  return {};
}

Result<bool> LineReader::next(std::string& line) {
  line.clear();
  while (true) {
    const std::size_t newline = buffer_.find('\n', pos_);
    if (newline != std::string::npos) {
      line.append(buffer_, pos_, newline - pos_);
      pos_ = newline + 1;
      break;
    }
    line.append(buffer_, pos_);
    pos_ = buffer_.size();
    if (eof_) {
      if (line.empty()) return false;
      break;  // a last line without a newline
    }
    if (auto filled = fill(); !filled) return std::unexpected(filled.error());
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++lineNumber_;
  return true;
}

Result<void> LineReader::forEachLine(const std::function<Result<void>(std::string_view)>& handle) {
  std::string line;
  while (true) {
    auto more = next(line);
    if (!more) return std::unexpected(more.error());
    if (!*more) return {};
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (auto handled = handle(line); !handled) return handled;
  }
}

std::unexpected<Error> LineReader::error(std::string_view message) const {
  return fail(ErrorCode::kInvalidArgument,
              name_ + ":" + std::to_string(lineNumber_) + ": " + std::string(message));
}

}  // namespace attune::metrics
