// Per-hour maxima and per-hour quantiles of one resource over the last 169 hours: the basis of
// the hour-of-week peak, the 7-day maximum and the hour-of-day percentiles.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/log_scale.h"
#include "stats/wire.h"

namespace attune::stats {

// For each of the hours newest-168 .. newest (hour indices since the epoch, UTC) keeps the
// maximum fine code seen in that hour and, once the hour is over, the fine code of the hour's
// own q-quantile (lower nearest rank over the hour's samples). The newest ("open") hour keeps
// its samples' codes until it closes. 676 bytes inline plus the open hour's codes
// (2 bytes per sample in the current hour). Not thread-safe.
class HourlyRing {
 public:
  static constexpr std::uint32_t kHours = 169;  // this hour and the 168 before it

  // Adds a sample's code in hour `hour`. A later hour closes the open hour (computing its
  // q-quantile) and clears the slots it skips. Samples for hours before newest-168 are ignored;
  // samples for closed hours raise the hour's maximum but not its (already fixed) quantile.
  void add(std::uint32_t hour, FineCode code, double q) {
    if (hour == newest_ && any_) {  // fast path: the open hour
      Slot& slot = slots_[openSlot_];
      slot.max = std::max(slot.max, code);
      open_.push_back(code);
      return;
    }
    addSlow(hour, code, q);
  }

  // Maximum code over the hours in [hourNow - 168, hourNow]; sameHourOfWeek restricts it to
  // hourNow and hourNow - 168 (the current hour of the week, this week and last). kNoValue if
  // no sample falls there.
  FineCode maxCode(std::uint32_t hourNow, bool sameHourOfWeek) const;

  // The largest hourly q-quantile code among hours h in [hourNow - 168, hourNow] with
  // h % 24 == hourOfDay (the open hour's is computed from its samples with `q`). kNoValue if
  // none.
  FineCode hourOfDayQuantileCode(std::uint32_t hourNow, int hourOfDay, double q) const;
  // The largest hourly q-quantile code among all hours in [hourNow - 168, hourNow]: the largest
  // hourOfDayQuantileCode over the 24 hours of the day, in one pass. kNoValue if none.
  FineCode maxQuantileCode(std::uint32_t hourNow, double q) const;

  std::size_t heapBytes() const { return open_.capacity() * sizeof(FineCode); }
  void encode(Writer& w) const;
  void decode(Reader& r);

 private:
  struct Slot {
    FineCode max = kNoValue;
    FineCode quantile = kNoValue;
  };
  // Calls fn(hour, slot) for each stored hour in [hourNow - 168, hourNow].
  template <typename Fn>
  void forEachHour(std::uint32_t hourNow, Fn fn) const;
  // The q-quantile code of the open hour's samples (kNoValue if none).
  FineCode openQuantile(double q) const;
  void addSlow(std::uint32_t hour, FineCode code, double q);

  bool any_ = false;
  std::uint8_t openSlot_ = 0;  // newest_ % kHours
  std::uint32_t newest_ = 0;   // the open hour
  std::vector<FineCode> open_;
  std::array<Slot, kHours> slots_{};  // hour h lives at h % kHours
};

}  // namespace attune::stats
