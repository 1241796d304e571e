#include "options.hpp"

#include <cctype>
#include <charconv>
#include <vector>

namespace cudalab::viewer {
namespace {

// Splits on `sep` and parses each part as a positive integer.
std::optional<std::vector<std::uint64_t>> positive_numbers(const std::string& text, char sep) {
  std::vector<std::uint64_t> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(text.find(sep, begin), text.size());
    std::uint64_t value = 0;
    const char* first = text.data() + begin;
    const char* last = text.data() + end;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || value == 0) return std::nullopt;
    out.push_back(value);
    if (end == text.size()) return out;
    begin = end + 1;
  }
}

}  // namespace

std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_extent(const std::string& text) {
  const auto n = positive_numbers(text, 'x');
  if (!n || n->size() != 2) return std::nullopt;
  return std::pair{(*n)[0], (*n)[1]};
}

std::optional<Dim3> parse_dim3(const std::string& text) {
  const auto n = positive_numbers(text, ',');
  if (!n || n->empty() || n->size() > 3) return std::nullopt;
  for (std::uint64_t v : *n)
    if (v > 0xffffffffu) return std::nullopt;
  Dim3 d;
  d.x = static_cast<std::uint32_t>((*n)[0]);
  if (n->size() > 1) d.y = static_cast<std::uint32_t>((*n)[1]);
  if (n->size() > 2) d.z = static_cast<std::uint32_t>((*n)[2]);
  return d;
}

std::optional<std::pair<std::string, std::int64_t>> parse_assignment(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == 0 || equals == std::string::npos) return std::nullopt;
  std::int64_t value = 0;
  const char* first = text.data() + equals + 1;
  const char* last = text.data() + text.size();
  // "0x3f801000": a bit pattern reads best in hex.
  const bool hex = last - first > 2 && first[0] == '0' && (first[1] == 'x' || first[1] == 'X');
  if (hex) first += 2;
  if (hex && !std::isxdigit(static_cast<unsigned char>(*first))) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(first, last, value, hex ? 16 : 10);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return std::pair{text.substr(0, equals), value};
}

}  // namespace cudalab::viewer
