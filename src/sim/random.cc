#include "sim/random.h"

#include <cmath>
#include <numbers>

namespace attune::sim {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// FNV-1a, to turn a stream name into a seed component.
std::uint64_t hashName(std::string_view name) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

}  // namespace

Random::Random(std::uint64_t seed) : seed_(seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

std::uint64_t Random::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Random::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::uint64_t Random::below(std::uint64_t n) {
  // Lemire's nearly-divisionless method would be faster; modulo bias is removed by rejection.
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t v = next();
  while (v >= limit) v = next();
  return v % n;
}

double Random::normal(double mean, double stddev) {
  // Box–Muller with u1 in (0, 1] so log(u1) is finite.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

double Random::lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

bool Random::chance(double p) { return uniform() < p; }

Random Random::fork(std::string_view stream) const {
  std::uint64_t x = seed_ ^ hashName(stream);
  return Random(splitmix64(x));
}

}  // namespace attune::sim
