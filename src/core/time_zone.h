// Time zones from the system's tz database (IANA zoneinfo, TZif files as RFC 8536 describes
// them): the UTC offset in effect at a point in time, for wall-clock rules such as a policy's
// resize schedule. Parsing is pure (fromTzif); loadTimeZone reads the file.
//
// Offsets come from the file's transition table. Debian's tzdata ships "fat" files whose table
// runs to 2037; after the last transition the last offset holds (the POSIX TZ string of the
// file's footer is not evaluated).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/time.h"

namespace attune {

class TimeZone {
 public:
  // UTC (offset 0 at all times).
  static TimeZone utc();
  // Parses the bytes of a TZif file (versions 1 to 4; the 64-bit table when the file has one).
  // `name` is kept for messages. kInvalidArgument when the bytes are not a TZif file.
  static Result<TimeZone> fromTzif(std::string_view name, std::string_view bytes);

  const std::string& name() const { return name_; }
  // The offset of local time from UTC in effect at `t` (local = UTC + offset).
  std::chrono::seconds offsetAt(Time t) const;

 private:
  std::string name_;
  std::vector<std::int64_t> transitions_;  // Unix seconds, ascending
  std::vector<std::int32_t> offsets_;      // the offset from each transition on
  std::int32_t initialOffset_ = 0;         // before the first transition
};

// The directory zoneinfo files are read from: $TZDIR when set, else /usr/share/zoneinfo.
std::string zoneinfoDirectory();

// The zone named `name` (an IANA name such as "Europe/Paris", or "UTC"), read from
// `directory`/`name`. "UTC" (and "Etc/UTC") needs no file. kInvalidArgument for a name that is
// not a relative path of letters, digits, '_', '-', '+' and '/' without "." components;
// kNotFound when no such file exists or it is not a TZif file.
Result<TimeZone> loadTimeZone(std::string_view name, const std::string& directory);

// True when `name` has the form loadTimeZone accepts (it may still not exist).
bool isTimeZoneName(std::string_view name);

}  // namespace attune
