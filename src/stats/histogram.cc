#include "stats/histogram.h"

#include <cmath>
#include <numeric>

namespace attune::stats {

void Histogram::add(int bucket, std::uint64_t n) {
  if (bucket < 0) {
    zero += n;
    return;
  }
  includeBucket(counts, base, bucket);
  counts[static_cast<std::size_t>(bucket - base)] += n;
}

void Histogram::merge(const Histogram& other) {
  zero += other.zero;
  for (std::size_t i = 0; i < other.counts.size(); ++i) {
    if (other.counts[i] != 0) add(other.base + static_cast<int>(i), other.counts[i]);
  }
}

std::uint64_t Histogram::total() const {
  return std::accumulate(counts.begin(), counts.end(), zero);
}

std::optional<double> Histogram::quantile(double q, const LogScale& scale) const {
  const std::uint64_t n = total();
  if (n == 0) return std::nullopt;
  const auto rank = static_cast<std::uint64_t>(std::floor(q * static_cast<double>(n - 1)));
  std::uint64_t seen = zero;
  if (rank < seen) return 0.0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (rank < seen) return scale.bucketValue(base + static_cast<int>(i));
  }
  return scale.bucketValue(base + static_cast<int>(counts.size()) - 1);
}

void Histogram::encode(Writer& w) const {
  std::size_t first = 0;
  std::size_t last = counts.size();
  while (first < last && counts[first] == 0) ++first;
  while (last > first && counts[last - 1] == 0) --last;
  w.varint(zero);
  w.varint(first == last ? 0 : static_cast<std::uint64_t>(base) + first);
  w.varint(last - first);
  for (std::size_t i = first; i < last;) {
    if (counts[i] != 0) {
      w.varint(counts[i++]);
      continue;
    }
    std::size_t run = 0;
    while (counts[i + run] == 0) ++run;  // ends before `last`, which is non-zero
    w.varint(0);
    w.varint(run);
    i += run;
  }
}

void Histogram::mergeEncoded(Reader& r) {
  zero += r.varint();
  const std::uint64_t first = r.varint();
  const std::uint64_t n = r.varint();
  if (first + n > static_cast<std::uint64_t>(kMaxBucket) + 1) {
    r.corrupt("has a histogram bucket out of range");
  }
  for (std::uint64_t i = 0; r.ok() && i < n;) {
    const std::uint64_t c = r.varint();
    if (c != 0) {
      add(static_cast<int>(first + i), c);
      ++i;
      continue;
    }
    const std::uint64_t run = r.varint();
    if (run == 0 || run > n - i) r.corrupt("has an invalid zero run");
    i += run;
  }
}

}  // namespace attune::stats
