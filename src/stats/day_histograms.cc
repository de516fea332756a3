#include "stats/day_histograms.h"

#include <algorithm>

namespace attune::stats {
namespace {

// Codes of the packed day histogram, one 4-bit code per bucket (two per byte, low nibble
// first): 0..13 is the count itself, kBigCount a count >= 14 and kZeroRun a run of >= 3 empty
// buckets. The varint operand of an escape (count - 14, run - 3) follows the byte holding its
// code, the low nibble's before the high nibble's.
constexpr unsigned kBigCount = 14;
constexpr unsigned kZeroRun = 15;
constexpr std::size_t kMinZeroRun = 3;

// Packs `h` as varint zero, varint first bucket, varint bucket count n, then the codes of the
// n buckets from the first to the last non-empty one.
void packDay(Writer& w, const Histogram& h) {
  std::size_t first = 0;
  std::size_t last = h.counts.size();
  while (first < last && h.counts[first] == 0) ++first;
  while (last > first && h.counts[last - 1] == 0) --last;
  w.varint(h.zero);
  w.varint(first == last ? 0 : static_cast<std::uint64_t>(h.base) + first);
  w.varint(last - first);
  std::uint8_t byte = 0;
  bool high = false;
  std::uint64_t operands[2];
  int pending = 0;
  const auto flush = [&] {
    w.u8(byte);
    for (int i = 0; i < pending; ++i) w.varint(operands[i]);
    byte = 0;
    pending = 0;
  };
  const auto put = [&](unsigned code) {
    byte = static_cast<std::uint8_t>(byte | (code << (high ? 4 : 0)));
    if (high) flush();
    high = !high;
  };
  for (std::size_t i = first; i < last;) {
    const std::uint64_t c = h.counts[i];
    if (c == 0) {
      std::size_t run = 0;
      while (h.counts[i + run] == 0) ++run;  // ends before `last`, which is non-zero
      if (run >= kMinZeroRun) {
        operands[pending++] = run - kMinZeroRun;
        put(kZeroRun);
        i += run;
        continue;
      }
    }
    if (c >= kBigCount) operands[pending++] = c - kBigCount;
    put(static_cast<unsigned>(std::min<std::uint64_t>(c, kBigCount)));
    ++i;
  }
  if (high) flush();
}

// Reads a packed day histogram: returns its zero count and calls fn(bucket, count) for each
// non-empty bucket in order; corrupt input fails `r` and stops the walk.
template <typename Fn>
std::uint64_t readPackedDay(Reader& r, Fn fn) {
  const std::uint64_t zero = r.varint();
  const std::uint64_t first = r.varint();
  const std::uint64_t n = r.varint();
  if (first + n > static_cast<std::uint64_t>(kMaxBucket) + 1) {
    r.corrupt("has a histogram bucket out of range");
  }
  std::uint64_t i = 0;
  while (r.ok() && i < n) {
    const std::uint8_t byte = r.u8();
    for (int k = 0; k < 2 && i < n && r.ok(); ++k) {
      const unsigned code = (byte >> (4 * k)) & 15u;
      if (code == kZeroRun) {
        const std::uint64_t extra = r.varint();
        if (n - i < kMinZeroRun || extra > n - i - kMinZeroRun) {
          r.corrupt("has an invalid zero run");
          return zero;
        }
        i += extra + kMinZeroRun;
        continue;
      }
      const std::uint64_t c = code == kBigCount ? kBigCount + r.varint() : code;
      if (c != 0 && r.ok()) fn(static_cast<int>(first + i), c);
      ++i;
    }
  }
  return zero;
}

// Adds a packed day histogram's counts to `h`; corrupt input fails `r`.
void unpackDay(Reader& r, Histogram& h) {
  h.zero += readPackedDay(r, [&](int bucket, std::uint64_t c) { h.add(bucket, c); });
}

// The number of samples of a packed day histogram (what unpackDay would add to a histogram's
// total), without unpacking it into one; corrupt input fails `r` as unpackDay does.
std::uint64_t packedDayTotal(Reader& r) {
  std::uint64_t counted = 0;
  const std::uint64_t zero = readPackedDay(r, [&](int, std::uint64_t c) { counted += c; });
  return zero + counted;
}

}  // namespace

Histogram DayHistograms::current() const {
  Histogram h;
  h.zero = zero_;
  h.base = base_;
  h.counts.assign(counts_.begin(), counts_.end());
  for (const Overflow& o : overflow_) {
    h.counts[static_cast<std::size_t>(o.bucket - base_)] += std::uint64_t{o.high} << 8;
  }
  return h;
}

std::vector<DayHistograms::Day> DayHistograms::decodeClosed(Reader& r) {
  std::vector<Day> days;
  while (r.ok() && r.remaining() > 0) {
    Day d{static_cast<std::uint32_t>(r.varint()), {}};
    if (!days.empty() && d.day <= days.back().day) r.corrupt("has days out of order");
    unpackDay(r, d.counts);
    days.push_back(std::move(d));
  }
  return days;
}

void DayHistograms::setClosed(const std::vector<Day>& days) {
  Writer w;
  for (const Day& d : days) {
    if (d.counts.empty()) continue;
    w.varint(d.day);
    packDay(w, d.counts);
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
  counts_.clear();  // keeps its capacity: the next day spans a similar range
  overflow_.clear();
  day_ = day;
}

void DayHistograms::include(int bucket) {
  constexpr std::size_t kSlack = 8;
  if (counts_.empty()) {
    base_ = bucket;
    if (counts_.capacity() == 0) counts_.reserve(kSlack);
    counts_.push_back(0);
    return;
  }
  const int top = base_ + static_cast<int>(counts_.size()) - 1;
  if (bucket >= base_ && bucket <= top) return;
  const int lo = std::min(base_, bucket);
  const auto size = static_cast<std::size_t>(std::max(top, bucket) - lo + 1);
  const auto shift = static_cast<std::size_t>(base_ - lo);
  if (size > counts_.capacity()) {
    std::vector<std::uint8_t> grown;
    grown.reserve(size + kSlack);
    grown.resize(size);
    std::copy(counts_.begin(), counts_.end(), grown.begin() + static_cast<std::ptrdiff_t>(shift));
    counts_.swap(grown);
  } else if (shift > 0) {
    counts_.insert(counts_.begin(), shift, 0);
    counts_.resize(size);
  } else {
    counts_.resize(size);
  }
  base_ = lo;
}

void DayHistograms::addSlow(std::uint32_t day, int bucket, int days) {
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
  include(bucket);
  std::uint8_t& c = counts_[static_cast<std::size_t>(bucket - base_)];
  if (c < UINT8_MAX) {
    ++c;
    return;
  }
  // Carry into the bucket's high byte (saturating at 65535).
  const auto b = static_cast<std::uint16_t>(bucket);
  auto it = std::find_if(overflow_.begin(), overflow_.end(),
                         [&](const Overflow& o) { return o.bucket == b; });
  if (it == overflow_.end()) {
    overflow_.push_back({b, 0});
    it = overflow_.end() - 1;
  }
  if (it->high == UINT8_MAX) return;
  ++it->high;
  c = 0;
}

Histogram DayHistograms::window(std::uint32_t dayNow, int days) const {
  Histogram h;
  if (!any_) return h;
  const auto inWindow = [&](std::uint32_t d) { return d <= dayNow && d + days > dayNow; };
  Reader r(closed_);
  while (r.remaining() > 0) {
    const auto d = static_cast<std::uint32_t>(r.varint());
    Histogram day;
    unpackDay(r, day);
    if (inWindow(d)) h.merge(day);
  }
  if (inWindow(day_)) h.merge(current());
  return h;
}

std::uint64_t DayHistograms::total(std::uint32_t dayNow, int days) const {
  if (!any_) return 0;
  const auto inWindow = [&](std::uint32_t d) { return d <= dayNow && d + days > dayNow; };
  std::uint64_t total = 0;
  Reader r(closed_);
  while (r.remaining() > 0) {
    const auto d = static_cast<std::uint32_t>(r.varint());
    const std::uint64_t day = packedDayTotal(r);
    if (inWindow(d)) total += day;
  }
  if (inWindow(day_)) {
    total += zero_;
    for (std::uint8_t c : counts_) total += c;
    for (const Overflow& o : overflow_) total += std::uint64_t{o.high} << 8;
  }
  return total;
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
  counts_.reserve(today.counts.size());
  for (std::size_t i = 0; i < today.counts.size(); ++i) {
    const std::uint64_t c = today.counts[i];
    counts_.push_back(static_cast<std::uint8_t>(c & 0xff));
    if (c > 0xff) {
      overflow_.push_back({static_cast<std::uint16_t>(base_ + static_cast<int>(i)),
                           static_cast<std::uint8_t>(c >> 8)});
    }
  }
  closed_.assign(closed.begin(), closed.end());
}

}  // namespace attune::stats
