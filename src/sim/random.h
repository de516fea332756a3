// The simulator's one source of randomness: a seeded, portable generator (xoshiro256**) whose
// output depends only on the seed, never on the platform or the standard library, so the same
// scenario and seed give byte-identical results everywhere. Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace attune::sim {

class Random {
 public:
  explicit Random(std::uint64_t seed);

  // Uniform 64-bit value.
  std::uint64_t next();
  // Uniform in [0, 1).
  double uniform();
  // Uniform integer in [0, n); n > 0.
  std::uint64_t below(std::uint64_t n);
  // Normal with the given mean and standard deviation (Box–Muller; deterministic).
  double normal(double mean, double stddev);
  // exp(normal(mu, sigma)).
  double lognormal(double mu, double sigma);
  // True with probability p.
  bool chance(double p);

  // An independent generator for a named stream (e.g. one per workload), derived from this
  // generator's seed and the name only: adding a stream never changes another stream's values.
  Random fork(std::string_view stream) const;

 private:
  std::uint64_t seed_;
  std::uint64_t s_[4];
};

}  // namespace attune::sim
