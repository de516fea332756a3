// The long-horizon sketch of one resource: one histogram per UTC day for the last D days, so
// that whole days expire exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/histogram.h"
#include "stats/wire.h"

namespace attune::stats {

// The current (newest) day's counts are dense 16-bit counters (2 bytes per bucket between the
// day's smallest and largest; a bucket saturates at 65535 samples, i.e. only at more than one
// sample per 1.3 s in one bucket all day); earlier days are stored Histogram-encoded (about one
// byte per bucket) in one byte vector. Expiry is by whole days: a window of D days at dayNow
// covers days dayNow - D + 1 .. dayNow, i.e. between D - 1 and D days of data — data older
// than D days never counts. Not thread-safe.
class DayHistograms {
 public:
  // Adds one sample of sketch bucket `bucket` in day `day`, keeping `days` days. Samples for
  // days before newest - days + 1 are ignored. A sample for an earlier (already encoded) day
  // re-encodes the stored days (costly, meant for rare late samples).
  void add(std::uint32_t day, int bucket, int days);

  // Merged counts of the days in [dayNow - days + 1, dayNow].
  Histogram window(std::uint32_t dayNow, int days) const;

  std::size_t heapBytes() const {
    return counts_.capacity() * sizeof(std::uint16_t) + closed_.capacity();
  }
  void encode(Writer& w) const;
  void decode(Reader& r);

 private:
  struct Day {
    std::uint32_t day;
    Histogram counts;
  };
  // The current day as a Histogram.
  Histogram current() const;
  // All encoded days (oldest first); corrupt input fails `r`.
  static std::vector<Day> decodeClosed(Reader& r);
  void setClosed(const std::vector<Day>& days);
  // Starts day `day` (> day_): encodes the current day, drops days before day - days + 1.
  void advance(std::uint32_t day, int days);

  bool any_ = false;
  std::uint32_t day_ = 0;  // the current day
  std::uint16_t zero_ = 0;
  int base_ = 0;
  std::vector<std::uint16_t> counts_;
  // Earlier days: per day varint day index, then the Histogram encoding; oldest first.
  std::vector<std::uint8_t> closed_;
};

}  // namespace attune::stats
