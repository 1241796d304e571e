#include "cudalab/compare.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cudalab {
namespace {

// Enough digits that a float prints back to itself.
std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace

namespace detail {

void validate_comparison(Tolerance tolerance, const std::vector<std::size_t>& shape,
                         std::size_t expected_size) {
  if (!(tolerance.atol >= 0) || !(tolerance.rtol >= 0)) {
    throw std::invalid_argument("compare: atol and rtol must be >= 0, got atol " +
                                number(tolerance.atol) + " and rtol " + number(tolerance.rtol));
  }
  if (shape.empty()) return;
  const std::size_t elements =
      std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
  if (elements != expected_size) {
    std::string dims;
    for (std::size_t d : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    throw std::invalid_argument("compare: shape (" + dims + ") has " + std::to_string(elements) +
                                " elements but expected has " + std::to_string(expected_size));
  }
}

}  // namespace detail

std::string format_index(std::size_t flat_index, const std::vector<std::size_t>& shape) {
  if (shape.empty()) return "[" + std::to_string(flat_index) + "]";
  std::vector<std::size_t> multi(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    multi[d] = flat_index % shape[d];
    flat_index /= shape[d];
  }
  std::string text = "(";
  for (std::size_t d = 0; d < multi.size(); ++d) {
    text += (d == 0 ? "" : ", ") + std::to_string(multi[d]);
  }
  return text + ")";
}

std::string Comparison::format_index(std::size_t flat_index) const {
  return cudalab::format_index(flat_index, shape);
}

std::string Comparison::to_string() const {
  const std::string rule = "|actual - expected| <= " + number(tolerance.atol) + " + " +
                           number(tolerance.rtol) + " * |expected|";
  if (actual_size != expected_size) {
    return "size mismatch: actual has " + std::to_string(actual_size) + " elements, expected has " +
           std::to_string(expected_size);
  }
  // The error figures cover only elements where both values are finite; say
  // so, and never print "max abs error 0" for an output that is all NaN.
  std::string errors;
  if (finite_pairs > 0) {
    errors = "max abs error " + number(max_abs_error);
    if (max_abs_error > 0) errors += " at " + format_index(max_abs_error_index);
    errors += ", max rel error " + number(max_rel_error);
    if (finite_pairs < expected_size) {
      errors += " (over the " + std::to_string(finite_pairs) + " elements where both are finite)";
    }
  }
  if (ok) {
    return "all " + std::to_string(expected_size) + " elements within " + rule +
           (errors.empty() ? "" : "; " + errors);
  }
  std::string text = std::to_string(mismatch_count) + " of " + std::to_string(expected_size) +
                     " elements differ (allowed: " + rule + ")";
  if (unexpected_nan > 0) {
    text += "; " + std::to_string(unexpected_nan) + (unexpected_nan == 1 ? " is" : " are") +
            " NaN where a number was expected, the first at " + format_index(first_unexpected_nan);
  }
  if (!errors.empty()) text += "; " + errors;
  text += "\n";
  for (const Mismatch& m : first_mismatches) {
    text += "  at " + format_index(m.index) + ": actual " + number(m.actual) + ", expected " +
            number(m.expected);
    if (std::isfinite(m.actual) && std::isfinite(m.expected)) {
      text += ", |diff| " + number(std::abs(m.actual - m.expected)) + " > allowed " +
              number(tolerance.atol + tolerance.rtol * std::abs(m.expected));
    }
    text += "\n";
  }
  if (mismatch_count > first_mismatches.size()) {
    text += "  ... and " + std::to_string(mismatch_count - first_mismatches.size()) + " more\n";
  }
  return text;
}

}  // namespace cudalab
