// Counts per sketch bucket (see log_scale.h), dense over the range of buckets seen.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "stats/log_scale.h"
#include "stats/wire.h"

namespace attune::stats {

// A sketch histogram: `zero` values below minValue and counts[i] values in bucket base + i.
struct Histogram {
  std::uint64_t zero = 0;
  int base = 0;
  std::vector<std::uint64_t> counts;

  void add(int bucket, std::uint64_t n = 1);
  void merge(const Histogram& other);
  std::uint64_t total() const;
  bool empty() const { return total() == 0; }

  // The q-quantile (q in [0, 1]) as the representative value of the bucket holding the sample
  // of lower nearest rank floor(q * (total - 1)): within kSketchRelativeError (0.99%) of that
  // sample (exact 0 for zero values). nullopt when empty.
  std::optional<double> quantile(double q, const LogScale& scale) const;

  // Compact encoding: varint zero, varint base, varint n, then n counts where a run of zero
  // counts is written as 0 followed by the run length. Leading and trailing zeros are trimmed.
  void encode(Writer& w) const;
  // Adds an encoded histogram's counts to this one; corrupt input fails `r`.
  void mergeEncoded(Reader& r);
};

// Grows the dense range [base, base + counts.size()) of `counts` to include `bucket`.
template <typename Count>
void includeBucket(std::vector<Count>& counts, int& base, int bucket) {
  if (counts.empty()) {
    base = bucket;
    counts.resize(1);
  } else if (bucket < base) {
    counts.insert(counts.begin(), static_cast<std::size_t>(base - bucket), 0);
    base = bucket;
  } else if (bucket >= base + static_cast<int>(counts.size())) {
    counts.resize(static_cast<std::size_t>(bucket - base + 1));
  }
}

}  // namespace attune::stats
