#include "stats/hourly_ring.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attune::stats {
namespace {

// Lower nearest rank of quantile q among n values.
std::size_t lowerRank(double q, std::size_t n) {
  return static_cast<std::size_t>(std::floor(q * static_cast<double>(n - 1)));
}

// The lower-nearest-rank q-quantile of `codes` (kNoValue if empty); may reorder them.
FineCode selectQuantile(std::vector<FineCode>& codes, double q) {
  if (codes.empty()) return kNoValue;
  const std::size_t rank = lowerRank(q, codes.size());
  const std::size_t above = codes.size() - 1 - rank;  // codes ranked above the quantile
  constexpr std::size_t kSmall = 8;
  if (above < kSmall) {
    // One pass keeping the k = above + 1 largest codes in increasing order in top[lo..kSmall)
    // (initially kNoValue, below every code), followed by a sentinel above every code. Hourly
    // quantiles are high percentiles, so this is the usual case and cheaper than nth_element.
    // Most codes are skipped by one compare; inserting c and dropping the smallest is
    // branch-free: top[i] = max(top[i], min(c, top[i + 1])) (in place, ascending i).
    const std::size_t lo = kSmall - 1 - above;
    std::array<FineCode, kSmall + 1> top{};
    top[kSmall] = UINT16_MAX;
    FineCode floor = kNoValue;  // top[lo]
    for (const FineCode c : codes) {
      if (c <= floor) continue;
      for (std::size_t i = lo; i < kSmall; ++i) {
        const FineCode up = top[i + 1];
        const FineCode m = c < up ? c : up;
        top[i] = top[i] > m ? top[i] : m;
      }
      floor = top[lo];
    }
    return floor;
  }
  auto nth = codes.begin() + static_cast<std::ptrdiff_t>(rank);
  std::nth_element(codes.begin(), nth, codes.end());
  return *nth;
}

}  // namespace

FineCode HourlyRing::openQuantile(double q) const {
  std::vector<FineCode> codes = open_;
  return selectQuantile(codes, q);
}

void HourlyRing::addSlow(std::uint32_t hour, FineCode code, double q) {
  if (!any_) {
    any_ = true;
    newest_ = hour;
    openSlot_ = static_cast<std::uint8_t>(hour % kHours);
  } else if (hour > newest_) {
    slots_[openSlot_].quantile = selectQuantile(open_, q);  // open_ is cleared next
    open_.clear();
    const std::uint32_t skipped = std::min(hour - newest_, kHours);
    for (std::uint32_t i = 1; i <= skipped; ++i) slots_[(newest_ + i) % kHours] = Slot{};
    newest_ = hour;
    openSlot_ = static_cast<std::uint8_t>(hour % kHours);
  } else if (hour + (kHours - 1) < newest_) {
    return;
  }
  Slot& slot = slots_[hour % kHours];
  slot.max = std::max(slot.max, code);
  if (hour == newest_) open_.push_back(code);
}

template <typename Fn>
void HourlyRing::forEachHour(std::uint32_t hourNow, Fn fn) const {
  if (!any_) return;
  const std::int64_t from = std::max<std::int64_t>(std::int64_t{hourNow} - (kHours - 1),
                                                   std::int64_t{newest_} - (kHours - 1));
  const std::int64_t to = std::min(hourNow, newest_);
  for (std::int64_t h = std::max<std::int64_t>(from, 0); h <= to; ++h) {
    fn(static_cast<std::uint32_t>(h), slots_[h % kHours]);
  }
}

FineCode HourlyRing::maxCode(std::uint32_t hourNow, bool sameHourOfWeek) const {
  FineCode best = kNoValue;
  forEachHour(hourNow, [&](std::uint32_t h, const Slot& s) {
    if (!sameHourOfWeek || h == hourNow || h + (kHours - 1) == hourNow)
      best = std::max(best, s.max);
  });
  return best;
}

FineCode HourlyRing::hourOfDayQuantileCode(std::uint32_t hourNow, int hourOfDay, double q) const {
  FineCode best = kNoValue;
  forEachHour(hourNow, [&](std::uint32_t h, const Slot& s) {
    if (static_cast<int>(h % 24) != hourOfDay) return;
    best = std::max(best, h == newest_ ? openQuantile(q) : s.quantile);
  });
  return best;
}

FineCode HourlyRing::maxQuantileCode(std::uint32_t hourNow, double q) const {
  FineCode best = kNoValue;
  forEachHour(hourNow, [&](std::uint32_t h, const Slot& s) {
    best = std::max(best, h == newest_ ? openQuantile(q) : s.quantile);
  });
  return best;
}

void HourlyRing::encode(Writer& w) const {
  w.u8(any_ ? 1 : 0);
  if (!any_) return;
  w.u32(newest_);
  for (const Slot& s : slots_) {
    w.u16(s.max);
    w.u16(s.quantile);
  }
  w.varint(open_.size());
  for (FineCode c : open_) w.u16(c);
}

void HourlyRing::decode(Reader& r) {
  *this = HourlyRing();
  const std::uint8_t any = r.u8();
  if (any > 1) r.corrupt("has an invalid hourly flag");
  if (!r.ok() || !any) return;
  any_ = true;
  newest_ = r.u32();
  openSlot_ = static_cast<std::uint8_t>(newest_ % kHours);
  for (Slot& s : slots_) {
    s.max = r.u16();
    s.quantile = r.u16();
  }
  const std::uint64_t n = r.varint();
  if (n > r.remaining() / 2) r.corrupt("has an open-hour count beyond its size");
  if (!r.ok()) return;
  open_.resize(n);
  for (FineCode& c : open_) c = r.u16();
}

}  // namespace attune::stats
