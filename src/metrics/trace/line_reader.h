// LineReader: reads a text file line by line, plain or gzip-compressed alike (zlib's gzread
// passes uncompressed input through), and knows where it is for error messages.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"

struct gzFile_s;  // zlib's opaque file handle

namespace attune::metrics {

class LineReader {
 public:
  // Opens `path` for reading. kNotFound when it does not exist or cannot be opened.
  static Result<LineReader> open(const std::filesystem::path& path);

  // Reads the next line into `line`, without its "\n" or "\r\n". Returns false at the end of the
  // file; kInvalidArgument (naming the file and line) when the file is not valid gzip data.
  Result<bool> next(std::string& line);

  // Calls `handle` with each remaining line that is not blank, stopping at the end of the file
  // or at the first error (from reading or from `handle`), which it returns.
  Result<void> forEachLine(const std::function<Result<void>(std::string_view)>& handle);

  // 1-based number of the line last returned by next(); 0 before the first.
  std::int64_t lineNumber() const { return lineNumber_; }
  // The path as given to open().
  const std::string& name() const { return name_; }
  // An kInvalidArgument error "path:line: message" about the line last returned.
  std::unexpected<Error> error(std::string_view message) const;

 private:
  struct GzClose {
    void operator()(gzFile_s* file) const;
  };
  LineReader(gzFile_s* file, std::string name);
  Result<void> fill();

  std::unique_ptr<gzFile_s, GzClose> file_;
  std::string name_;
  std::string buffer_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  std::int64_t lineNumber_ = 0;
};

}  // namespace attune::metrics
