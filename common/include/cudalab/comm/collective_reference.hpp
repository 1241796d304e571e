// The host reference of NCCL's four collectives: one call on n ranks with
// its inputs (CollectiveCase), what every rank's recv buffer must hold
// afterwards, and the first element where an output differs. Host code,
// the same for every backend: the tests, the viewer and the rank harness
// (cudalab/harness/rank_calls.hpp) grade with it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cudalab/comm/comm.hpp"

namespace cudalab::comm {

// One call: `inputs[r]` is rank r's send buffer (send_elements: count, or
// ranks * count for reduce_scatter); in_place puts send and recv in one
// buffer as NCCL defines it (in_place_send_offset, in_place_recv_offset).
struct CollectiveCase {
  Collective which = Collective::all_reduce;
  std::size_t count = 0;  // elements per rank, NCCL's count
  int root = 0;           // broadcast only
  bool in_place = false;
  // Rank r on device n - 1 - r where a call puts each rank on its own
  // device, so that code assuming rank r is on device r shows.
  bool devices_reversed = false;
  std::vector<std::vector<float>> inputs;  // one per rank
  int ranks() const { return static_cast<int>(inputs.size()); }
};

// A call whose rank r has the value r * 1000 + below_1000(r, i) at element
// i of its input: the ranks differ, and sums over 8 ranks stay exact in
// float whatever the order of the additions. `below_1000` gives an integer
// in [0, 1000): random in tests, fixed in the viewer.
template <class Below1000>
CollectiveCase make_case(Collective which, int ranks, std::size_t count, bool in_place, int root,
                         Below1000 below_1000) {
  CollectiveCase c{which, count, root, in_place, false, {}};
  const std::size_t per_rank = send_elements(which, count, ranks);
  for (int r = 0; r < ranks; ++r) {
    std::vector<float> input(per_rank);
    for (std::size_t i = 0; i < per_rank; ++i) {
      input[i] = static_cast<float>(r * 1000 + static_cast<int>(below_1000(r, i)));
    }
    c.inputs.push_back(std::move(input));
  }
  return c;
}

// Element i of rank `rank`'s recv buffer after `which` on `ranks` ranks whose
// inputs are input(r, j) (a sum adds the ranks in order).
template <class Input>
float expected_element(Collective which, int ranks, std::size_t count, int root, int rank,
                       std::size_t i, const Input& input) {
  float sum = 0.0f;
  switch (which) {
    case Collective::all_reduce:
      for (int r = 0; r < ranks; ++r) sum += input(r, i);
      return sum;
    case Collective::broadcast:
      return input(root, i);
    case Collective::all_gather:  // block q comes from rank q
      return input(static_cast<int>(i / count), i % count);
    case Collective::reduce_scatter:  // this rank's block of every rank's input
      for (int r = 0; r < ranks; ++r) sum += input(r, static_cast<std::size_t>(rank) * count + i);
      return sum;
  }
  return sum;
}

// What every rank's recv buffer must hold afterwards.
inline std::vector<std::vector<float>> expected_outputs(const CollectiveCase& c) {
  const int n = c.ranks();
  const auto input = [&c](int r, std::size_t i) {
    return c.inputs[static_cast<std::size_t>(r)][i];
  };
  std::vector<std::vector<float>> out(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < recv_elements(c.which, c.count, n); ++i) {
      out[static_cast<std::size_t>(r)].push_back(
          expected_element(c.which, n, c.count, c.root, r, i, input));
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

}  // namespace cudalab::comm
