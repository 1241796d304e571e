// Seeded random test data.
//
//   auto rng = cudalab::Random::fresh();         // new seed each run ...
//   SCOPED_TRACE(rng.seed_note());                // ... printed if the test fails
//   std::vector<float> x = rng.uniform(n, -1.0f, 1.0f);
//   std::vector<double> y = rng.normal(n, 0.0, 1.0);
//   std::vector<int> k = rng.uniform(n, 0, 9);    // integers: both ends included
//   rng.inject_specials(std::span(x), 3, cudalab::Special::kNaN);
//
// Fresh seeds make every run try new inputs; the printed seed makes a failure
// reproducible: CUDALAB_SEED=<seed> in the environment makes fresh() return
// that seed. The generator is std::mt19937_64 with cudalab's own conversion to
// floats and normals, so one seed gives the same numbers with any compiler.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace cudalab {

// Which special values inject_specials may write; combine with |.
enum class Special : unsigned {
  kNaN = 1u << 0,
  kPositiveInf = 1u << 1,
  kNegativeInf = 1u << 2,
  kInf = kPositiveInf | kNegativeInf,
  kAll = kNaN | kInf,
};
constexpr Special operator|(Special a, Special b) {
  return static_cast<Special>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool contains(Special set, Special one) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(one)) != 0;
}

// A seed for this run: CUDALAB_SEED from the environment when it is set (and
// then it must be a decimal number, else std::invalid_argument), otherwise
// one from std::random_device.
std::uint64_t fresh_seed();

class Random {
 public:
  explicit Random(std::uint64_t seed) : seed_(seed), engine_(seed) {}

  // A generator seeded with fresh_seed().
  static Random fresh() { return Random(fresh_seed()); }

  std::uint64_t seed() const { return seed_; }

  // "random seed 42 (rerun with CUDALAB_SEED=42 to reproduce)", for failure messages.
  std::string seed_note() const;

  // n values uniformly distributed in [lo, hi). Needs finite lo < hi.
  template <std::floating_point T>
  std::vector<T> uniform(std::size_t n, T lo, T hi);

  // n values whose magnitudes are uniform in [lo, hi), each with a random
  // sign. Needs finite 0 <= lo < hi; with lo > 0 no value is zero.
  template <std::floating_point T>
  std::vector<T> signed_uniform(std::size_t n, T lo, T hi);

  // n integers uniformly distributed in [lo, hi], both ends included.
  template <std::integral T>
  std::vector<T> uniform(std::size_t n, T lo, T hi);

  // n values from the normal distribution N(mean, stddev²). Needs stddev >= 0.
  template <std::floating_point T>
  std::vector<T> normal(std::size_t n, T mean, T stddev);

  // Overwrites `count` distinct, randomly chosen elements of `values` with the
  // special values in `which` (taken in turn, so each kind appears once
  // `count` reaches the number of kinds) and returns their indices, sorted.
  // Throws std::invalid_argument if count > values.size() or `which` is empty.
  template <class T>
  requires std::numeric_limits<T>::has_quiet_NaN &&
      std::numeric_limits<T>::has_infinity std::vector<std::size_t>
      inject_specials(std::span<T> values, std::size_t count, Special which);

  // The building blocks, for data the helpers above don't cover.
  std::uint64_t next_u64() { return engine_(); }
  double next_unit();                             // uniform in [0, 1), 53 random bits
  std::uint64_t next_below(std::uint64_t bound);  // uniform in [0, bound), bound > 0
  double next_standard_normal();                  // N(0, 1)

 private:
  // `count` distinct indices below `size`, in random order.
  std::vector<std::size_t> distinct_indices_in_random_order(std::size_t size, std::size_t count);
  // Throws std::invalid_argument: "Random::<rule>, got <a> and <b>".
  [[noreturn]] static void throw_invalid(const char* rule, double a, double b);

  std::uint64_t seed_;
  std::mt19937_64 engine_;
};

template <std::floating_point T>
std::vector<T> Random::uniform(std::size_t n, T lo, T hi) {
  if (!(lo < hi && std::isfinite(static_cast<double>(hi) - static_cast<double>(lo)))) {
    throw_invalid("uniform needs finite lo < hi", lo, hi);
  }
  std::vector<T> values(n);
  const double width = static_cast<double>(hi) - static_cast<double>(lo);
  for (T& v : values) {
    v = static_cast<T>(static_cast<double>(lo) + width * next_unit());
    // Rounding to T can land exactly on hi; the interval is half-open.
    if (v >= hi) v = std::nextafter(hi, lo);
  }
  return values;
}

template <std::floating_point T>
std::vector<T> Random::signed_uniform(std::size_t n, T lo, T hi) {
  if (!(lo >= 0)) throw_invalid("signed_uniform needs 0 <= lo < hi", lo, hi);
  std::vector<T> values = uniform(n, lo, hi);
  for (T& v : values) {
    if (next_u64() & 1) v = -v;
  }
  return values;
}

template <std::integral T>
std::vector<T> Random::uniform(std::size_t n, T lo, T hi) {
  if (!(lo <= hi)) throw_invalid("uniform needs lo <= hi", lo, hi);
  // The span hi - lo + 1 in unsigned arithmetic; 0 means the full 64-bit range.
  const std::uint64_t span =
      static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + std::uint64_t{1};
  std::vector<T> values(n);
  for (T& v : values) {
    const std::uint64_t offset = span == 0 ? next_u64() : next_below(span);
    v = static_cast<T>(static_cast<std::uint64_t>(lo) + offset);
  }
  return values;
}

template <std::floating_point T>
std::vector<T> Random::normal(std::size_t n, T mean, T stddev) {
  if (!(stddev >= 0 && std::isfinite(stddev) && std::isfinite(mean))) {
    throw_invalid("normal needs a finite mean and stddev >= 0", mean, stddev);
  }
  std::vector<T> values(n);
  for (T& v : values) {
    v = static_cast<T>(static_cast<double>(mean) +
                       static_cast<double>(stddev) * next_standard_normal());
  }
  return values;
}

template <class T>
requires std::numeric_limits<T>::has_quiet_NaN &&
    std::numeric_limits<T>::has_infinity std::vector<std::size_t>
    Random::inject_specials(std::span<T> values, std::size_t count, Special which) {
  std::vector<T> kinds;
  if (contains(which, Special::kNaN)) kinds.push_back(std::numeric_limits<T>::quiet_NaN());
  if (contains(which, Special::kPositiveInf)) kinds.push_back(std::numeric_limits<T>::infinity());
  if (contains(which, Special::kNegativeInf)) kinds.push_back(-std::numeric_limits<T>::infinity());
  if (kinds.empty() && count > 0) {
    throw std::invalid_argument("inject_specials: no special value kind requested");
  }
  std::vector<std::size_t> positions = distinct_indices_in_random_order(values.size(), count);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    values[positions[i]] = kinds[i % kinds.size()];
  }
  std::sort(positions.begin(), positions.end());
  return positions;
}

}  // namespace cudalab
