// The long-horizon sketch of one resource: one histogram per UTC day for the last D days, so
// that whole days expire exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/histogram.h"
#include "stats/wire.h"

namespace attune::stats {

// The current (newest) day's counts are dense 8-bit counters (1 byte per bucket between the
// day's smallest and largest) with an overflow escape: a bucket past 255 samples carries its
// high byte in a short side list (4 bytes per such bucket). A bucket saturates at 65535
// samples, i.e. only at more than one sample per 1.3 s in one bucket all day. Earlier days are
// stored packed in one byte vector (a 4-bit code per bucket, see day_histograms.cc: about half
// a byte per bucket). Expiry is by whole days: a window of D days at dayNow covers days
// dayNow - D + 1 .. dayNow, i.e. between D - 1 and D days of data — data older than D days
// never counts. Not thread-safe.
class DayHistograms {
 public:
  // Adds one sample of sketch bucket `bucket` in day `day`, keeping `days` days. Samples for
  // days before newest - days + 1 are ignored. A sample for an earlier (already encoded) day
  // re-encodes the stored days (costly, meant for rare late samples).
  void add(std::uint32_t day, int bucket, int days) {
    // Fast path: a bucket inside the current day's dense range, below 255.
    const auto i = static_cast<std::size_t>(static_cast<unsigned>(bucket - base_));
    if (day == day_ && any_ && i < counts_.size() && counts_[i] < UINT8_MAX) {
      ++counts_[i];
      return;
    }
    addSlow(day, bucket, days);
  }

  // Merged counts of the days in [dayNow - days + 1, dayNow].
  Histogram window(std::uint32_t dayNow, int days) const;
  // window(dayNow, days).total(), without merging the days into a histogram.
  std::uint64_t total(std::uint32_t dayNow, int days) const;

  std::size_t heapBytes() const {
    return counts_.capacity() + overflow_.capacity() * sizeof(Overflow) + closed_.capacity();
  }
  void encode(Writer& w) const;
  void decode(Reader& r);

 private:
  struct Day {
    std::uint32_t day;
    Histogram counts;
  };
  // The high byte of a current-day bucket whose count passed 255.
  struct Overflow {
    std::uint16_t bucket;
    std::uint8_t high;
  };
  // The current day as a Histogram.
  Histogram current() const;
  // All encoded days (oldest first); corrupt input fails `r`.
  static std::vector<Day> decodeClosed(Reader& r);
  void setClosed(const std::vector<Day>& days);
  // Starts day `day` (> day_): encodes the current day, drops days before day - days + 1.
  void advance(std::uint32_t day, int days);
  void addSlow(std::uint32_t day, int bucket, int days);
  // Grows the current day's dense range to include `bucket` (with a little slack capacity).
  void include(int bucket);

  bool any_ = false;
  std::uint16_t zero_ = 0;
  std::uint32_t day_ = 0;  // the current day
  int base_ = 0;
  std::vector<std::uint8_t> counts_;  // low bytes of the current day's counts
  std::vector<Overflow> overflow_;    // high bytes, for buckets past 255
  // Earlier days: per day varint day index, then the packed histogram; oldest first.
  std::vector<std::uint8_t> closed_;
};

}  // namespace attune::stats
