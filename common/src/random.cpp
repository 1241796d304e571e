#include "cudalab/random.hpp"

#include <cerrno>
#include <cstdlib>
#include <numbers>
#include <sstream>
#include <unordered_set>

namespace cudalab {

std::uint64_t fresh_seed() {
  if (const char* text = std::getenv("CUDALAB_SEED"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long seed = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || *text == '-') {
      throw std::invalid_argument("CUDALAB_SEED='" + std::string(text) +
                                  "' is not a non-negative decimal number");
    }
    return seed;
  }
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ std::uint64_t{device()};
}

std::string Random::seed_note() const {
  return "random seed " + std::to_string(seed_) +
         " (rerun with CUDALAB_SEED=" + std::to_string(seed_) + " to reproduce)";
}

double Random::next_unit() {
  // The top 53 bits fill a double's mantissa exactly: every value k / 2^53.
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

std::uint64_t Random::next_below(std::uint64_t bound) {
  if (bound == 0) throw std::invalid_argument("Random::next_below: bound must be positive");
  // Rejecting the top partial copy of [0, bound) keeps every value equally likely.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % bound;
  std::uint64_t r = 0;
  do {
    r = next_u64();
  } while (r >= limit);
  return r % bound;
}

double Random::next_standard_normal() {
  // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - next_unit();
  const double u2 = next_unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::vector<std::size_t> Random::distinct_indices_in_random_order(std::size_t size,
                                                                  std::size_t count) {
  if (count > size) {
    throw std::invalid_argument("inject_specials: asked for " + std::to_string(count) +
                                " special values in " + std::to_string(size) + " elements");
  }
  // Floyd's algorithm picks `count` distinct indices in O(count), however
  // large `size` is; a Fisher-Yates pass then randomises their order.
  std::unordered_set<std::size_t> chosen;
  std::vector<std::size_t> indices;
  indices.reserve(count);
  for (std::size_t j = size - count; j < size; ++j) {
    const std::size_t t = static_cast<std::size_t>(next_below(j + 1));
    const std::size_t pick = chosen.contains(t) ? j : t;
    chosen.insert(pick);
    indices.push_back(pick);
  }
  for (std::size_t i = indices.size(); i > 1; --i) {
    std::swap(indices[i - 1], indices[static_cast<std::size_t>(next_below(i))]);
  }
  return indices;
}

void Random::throw_invalid(const char* rule, double a, double b) {
  std::ostringstream message;
  message << "Random::" << rule << ", got " << a << " and " << b;
  throw std::invalid_argument(message.str());
}

}  // namespace cudalab
