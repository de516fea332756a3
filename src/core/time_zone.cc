#include "core/time_zone.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace attune {
namespace {

constexpr std::size_t kHeaderSize = 44;
constexpr std::size_t kMaxTzifSize = 1 << 20;

std::uint32_t bigEndian32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

std::int64_t bigEndian64(std::string_view b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return static_cast<std::int64_t>(v);
}

struct Counts {
  std::size_t isut, isstd, leap, time, type, chars;
};

Counts countsAt(std::string_view b, std::size_t at) {
  return {bigEndian32(b, at + 20), bigEndian32(b, at + 24), bigEndian32(b, at + 28),
          bigEndian32(b, at + 32), bigEndian32(b, at + 36), bigEndian32(b, at + 40)};
}

// The size of a data block with `timeSize`-byte transition times (4 in version 1, else 8).
std::size_t blockSize(const Counts& c, std::size_t timeSize) {
  return c.time * timeSize + c.time + c.type * 6 + c.chars + c.leap * (timeSize + 4) + c.isstd +
         c.isut;
}

Error invalid(std::string_view name, std::string_view why) {
  return Error{ErrorCode::kInvalidArgument,
               "time zone " + std::string(name) + ": not a TZif file (" + std::string(why) + ")",
               ""};
}

}  // namespace

TimeZone TimeZone::utc() {
  TimeZone z;
  z.name_ = "UTC";
  return z;
}

Result<TimeZone> TimeZone::fromTzif(std::string_view name, std::string_view bytes) {
  if (bytes.size() < kHeaderSize || bytes.substr(0, 4) != "TZif") {
    return std::unexpected(invalid(name, "no TZif header"));
  }
  const char version = bytes[4];
  std::size_t header = 0;
  Counts counts = countsAt(bytes, header);
  std::size_t timeSize = 4;
  if (version != '\0') {
    // Version 2 and later: skip the 32-bit block to the 64-bit one.
    header = kHeaderSize + blockSize(counts, 4);
    if (bytes.size() < header + kHeaderSize || bytes.substr(header, 4) != "TZif") {
      return std::unexpected(invalid(name, "truncated before the 64-bit header"));
    }
    counts = countsAt(bytes, header);
    timeSize = 8;
  }
  const std::size_t data = header + kHeaderSize;
  if (counts.type == 0 || counts.time > kMaxTzifSize || counts.type > 256 ||
      bytes.size() < data + blockSize(counts, timeSize)) {
    return std::unexpected(invalid(name, "truncated or inconsistent counts"));
  }
  std::vector<std::int32_t> typeOffsets(counts.type);
  const std::size_t types = data + counts.time * timeSize + counts.time;
  for (std::size_t i = 0; i < counts.type; ++i) {
    typeOffsets[i] = static_cast<std::int32_t>(bigEndian32(bytes, types + i * 6));
  }
  TimeZone z;
  z.name_ = std::string(name);
  z.initialOffset_ = typeOffsets[0];
  for (std::size_t i = 0; i < counts.time; ++i) {
    const std::int64_t at = timeSize == 8
                                ? bigEndian64(bytes, data + i * 8)
                                : static_cast<std::int32_t>(bigEndian32(bytes, data + i * 4));
    const auto index = static_cast<unsigned char>(bytes[data + counts.time * timeSize + i]);
    if (index >= counts.type) return std::unexpected(invalid(name, "type index out of range"));
    if (!z.transitions_.empty() && at <= z.transitions_.back()) {
      return std::unexpected(invalid(name, "transitions out of order"));
    }
    z.transitions_.push_back(at);
    z.offsets_.push_back(typeOffsets[index]);
  }
  return z;
}

std::chrono::seconds TimeZone::offsetAt(Time t) const {
  const std::int64_t s = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
  // The last transition at or before s.
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), s);
  if (it == transitions_.begin()) return std::chrono::seconds(initialOffset_);
  return std::chrono::seconds(offsets_[static_cast<std::size_t>(it - transitions_.begin() - 1)]);
}

std::string zoneinfoDirectory() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string("/usr/share/zoneinfo");
}

bool isTimeZoneName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '/' || name.back() == '/') return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.front() == '-') return false;
    const bool ok = std::all_of(part.begin(), part.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '-' || c == '+' || c == '.';
    });
    if (!ok) return false;
    start = end + 1;
  }
  return true;
}

Result<TimeZone> loadTimeZone(std::string_view name, const std::string& directory) {
  if (!isTimeZoneName(name)) {
    return std::unexpected(Error{ErrorCode::kInvalidArgument,
                                 "\"" + std::string(name) + "\" is not an IANA time zone name",
                                 ""});
  }
  const std::string path = directory + "/" + std::string(name);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (name == "UTC" || name == "Etc/UTC") return TimeZone::utc();
    return std::unexpected(Error{
        ErrorCode::kNotFound,
        "unknown time zone \"" + std::string(name) + "\" (no " + path + " in the tz database)",
        ""});
  }
  std::string bytes;
  bytes.resize(kMaxTzifSize);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  auto zone = TimeZone::fromTzif(name, bytes);
  if (!zone) return std::unexpected(Error{ErrorCode::kNotFound, zone.error().message, ""});
  return zone;
}

}  // namespace attune
