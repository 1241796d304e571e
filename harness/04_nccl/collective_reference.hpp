// The host reference of lab 04's collectives: the inputs, what every
// rank's recv buffer must hold after a call, and the first element where an
// output differs. The tests grade with it; lab04_ranks checks each process's rank
// with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"

namespace lab04::harness {

// A call whose rank r has the value r * 1000 + below_1000(r, i) at element
// i of its input: the ranks differ, and sums over 8 ranks stay exact in
// float. `below_1000` gives an integer in [0, 1000): random in the tests
// and lab04_ranks (from a seed every process shares), fixed in the viewer.
template <class Below1000>
CollectiveCase make_case(Collective which, int ranks, std::size_t count, bool in_place, int root,
                         Below1000 below_1000) {
  CollectiveCase c;
  c.which = which;
  c.count = count;
  c.root = root;
  c.in_place = in_place;
  const std::size_t per_rank = cudalab::comm::send_elements(which, count, ranks);
  for (int r = 0; r < ranks; ++r) {
    std::vector<float> input(per_rank);
    for (std::size_t i = 0; i < per_rank; ++i) {
      input[i] = static_cast<float>(r * 1000 + static_cast<int>(below_1000(r, i)));
    }
    c.inputs.push_back(std::move(input));
  }
  return c;
}

// Chunk c of a ring over `count` elements on n ranks: elements
// [ring_chunk_begin(c), ring_chunk_begin(c + 1)) (the handout's convention).
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

// What every rank's recv buffer must hold afterwards.
inline std::vector<std::vector<float>> expected_outputs(const CollectiveCase& c) {
  const int n = c.ranks();
  const std::size_t count = c.count;
  std::vector<std::vector<float>> out(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    std::vector<float>& o = out[static_cast<std::size_t>(r)];
    switch (c.which) {
      case Collective::all_reduce:
        o.assign(count, 0.0f);
        for (const auto& in : c.inputs) {
          for (std::size_t i = 0; i < count; ++i) o[i] += in[i];
        }
        break;
      case Collective::broadcast:
        o = c.inputs[static_cast<std::size_t>(c.root)];
        break;
      case Collective::all_gather:
        for (const auto& in : c.inputs) o.insert(o.end(), in.begin(), in.end());
        break;
      case Collective::reduce_scatter:
        o.assign(count, 0.0f);
        for (const auto& in : c.inputs) {
          for (std::size_t i = 0; i < count; ++i)
            o[i] += in[static_cast<std::size_t>(r) * count + i];
        }
        break;
    }
  }
  return out;
}

// The first element where `got` differs from `want` (NaN differs from
// everything), as "rank 2, element 17: got nan, want 4512".
inline std::optional<std::string> first_mismatch(const std::vector<std::vector<float>>& got,
                                                 const std::vector<std::vector<float>>& want) {
  if (got.size() != want.size()) {
    return "outputs of " + std::to_string(got.size()) + " ranks, want " +
           std::to_string(want.size());
  }
  for (std::size_t r = 0; r < want.size(); ++r) {
    if (got[r].size() != want[r].size()) {
      return "rank " + std::to_string(r) + ": " + std::to_string(got[r].size()) +
             " elements, want " + std::to_string(want[r].size());
    }
    for (std::size_t i = 0; i < want[r].size(); ++i) {
      if (!(got[r][i] == want[r][i])) {
        return "rank " + std::to_string(r) + ", element " + std::to_string(i) + ": got " +
               std::to_string(got[r][i]) + ", want " + std::to_string(want[r][i]);
      }
    }
  }
  return std::nullopt;
}

}  // namespace lab04::harness
