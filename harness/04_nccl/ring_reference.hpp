// The ring's arithmetic as the handout states it, for the tests and
// lab04_ranks to grade exercise 4's traffic with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudalab/comm/comm.hpp"

namespace lab04::harness {

// Chunk c of a ring over `count` elements on n ranks: elements
// [ring_chunk_begin(c), ring_chunk_begin(c + 1)).
inline std::size_t ring_chunk_begin(std::size_t c, std::size_t count, int n) {
  return c * count / static_cast<std::size_t>(n);
}

// The bytes rank r's ring all-reduce sends (all to rank r + 1): every chunk
// but (r + 1) in the reduce-scatter, every chunk but (r + 2) in the
// all-gather, of float elements.
inline std::uint64_t ring_bytes_sent(int r, std::size_t count, int n) {
  if (n == 1) return 0;
  const auto chunk_bytes = [&](int c) {
    const auto cc = static_cast<std::size_t>(c % n);
    return (ring_chunk_begin(cc + 1, count, n) - ring_chunk_begin(cc, count, n)) * sizeof(float);
  };
  return 2 * count * sizeof(float) - chunk_bytes(r + 1) - chunk_bytes(r + 2);
}

// "" when every rank sent the ring's bytes, all to the next rank; else what is off.
inline std::string ring_traffic_problem(const cudalab::comm::Traffic& t, std::size_t count) {
  const int n = t.ranks;
  std::string off;
  for (int r = 0; r < n; ++r) {
    const std::uint64_t ring = ring_bytes_sent(r, count, n);
    if (t.sent_by(r) != ring || t.sent(r, (r + 1) % n) != t.sent_by(r)) {
      off += " rank " + std::to_string(r) + " sent " + std::to_string(t.sent_by(r)) +
             " bytes (to the next rank: " + std::to_string(t.sent(r, (r + 1) % n)) +
             "), the ring sends " + std::to_string(ring) + ";";
    }
  }
  return off.empty() ? "" : "traffic:" + off;
}

}  // namespace lab04::harness
