#include "stats/day_histograms.h"

#include <algorithm>

namespace attune::stats {

Histogram DayHistograms::current() const {
  Histogram h;
  h.zero = zero_;
  h.base = base_;
  h.counts.assign(counts_.begin(), counts_.end());
  return h;
}

std::vector<DayHistograms::Day> DayHistograms::decodeClosed(Reader& r) {
  std::vector<Day> days;
  while (r.ok() && r.remaining() > 0) {
    Day d{static_cast<std::uint32_t>(r.varint()), {}};
    if (!days.empty() && d.day <= days.back().day) r.corrupt("has days out of order");
    d.counts.mergeEncoded(r);
    days.push_back(std::move(d));
  }
  return days;
}

void DayHistograms::setClosed(const std::vector<Day>& days) {
  Writer w;
  for (const Day& d : days) {
    if (d.counts.empty()) continue;
    w.varint(d.day);
    d.counts.encode(w);
  }
  closed_ = std::move(w.bytes());
  closed_.shrink_to_fit();  // rewritten once a day: keep no slack
}

void DayHistograms::advance(std::uint32_t day, int days) {
  Reader r(closed_);
  std::vector<Day> closed = decodeClosed(r);
  closed.push_back({day_, current()});
  std::erase_if(closed, [&](const Day& d) { return d.day + days <= day; });
  setClosed(closed);
  zero_ = 0;
  counts_.clear();
  day_ = day;
}

void DayHistograms::add(std::uint32_t day, int bucket, int days) {
  if (!any_) {
    any_ = true;
    day_ = day;
  } else if (day > day_) {
    advance(day, days);
  } else if (day < day_) {
    if (day + days <= day_) return;
    Reader r(closed_);
    std::vector<Day> closed = decodeClosed(r);
    auto it = std::lower_bound(closed.begin(), closed.end(), day,
                               [](const Day& d, std::uint32_t x) { return d.day < x; });
    if (it == closed.end() || it->day != day) it = closed.insert(it, Day{day, {}});
    it->counts.add(bucket);
    setClosed(closed);
    return;
  }
  if (bucket < 0) {
    if (zero_ < UINT16_MAX) ++zero_;
    return;
  }
  includeBucket(counts_, base_, bucket);
  std::uint16_t& c = counts_[static_cast<std::size_t>(bucket - base_)];
  if (c < UINT16_MAX) ++c;
}

Histogram DayHistograms::window(std::uint32_t dayNow, int days) const {
  Histogram h;
  if (!any_) return h;
  const auto inWindow = [&](std::uint32_t d) { return d <= dayNow && d + days > dayNow; };
  Reader r(closed_);
  while (r.remaining() > 0) {
    const auto d = static_cast<std::uint32_t>(r.varint());
    Histogram day;
    day.mergeEncoded(r);
    if (inWindow(d)) h.merge(day);
  }
  if (inWindow(day_)) h.merge(current());
  return h;
}

void DayHistograms::encode(Writer& w) const {
  w.u8(any_ ? 1 : 0);
  if (!any_) return;
  w.u32(day_);
  current().encode(w);
  w.blob(closed_);
}

void DayHistograms::decode(Reader& r) {
  *this = DayHistograms();
  const std::uint8_t any = r.u8();
  if (any > 1) r.corrupt("has an invalid day flag");
  if (!r.ok() || !any) return;
  any_ = true;
  day_ = r.u32();
  Histogram today;
  today.mergeEncoded(r);
  if (today.zero > UINT16_MAX) r.corrupt("has a day count out of range");
  for (std::uint64_t c : today.counts) {
    if (c > UINT16_MAX) r.corrupt("has a day count out of range");
  }
  const auto closed = r.blob();
  if (!r.ok()) return;
  Reader inner(closed);
  const std::vector<Day> days = decodeClosed(inner);
  if (!inner.ok()) r.corrupt("has a corrupt day histogram");
  if (!days.empty() && days.back().day >= day_) r.corrupt("has days out of order");
  if (!r.ok()) return;
  zero_ = static_cast<std::uint16_t>(today.zero);
  base_ = today.base;
  counts_.assign(today.counts.begin(), today.counts.end());
  closed_.assign(closed.begin(), closed.end());
}

}  // namespace attune::stats
