// Lab 04 behind one interface, whichever backend runs it: its entry points,
// each declared once here and bound to the lab's code in backend_impl.hpp,
// which the host compiler (ranks as host threads over the emulator's
// virtual devices, one per rank, and the emulator's NCCL) and nvcc
// (simulated ranks as streams of one GPU, and real NCCL over one GPU per
// rank) each build.
//
// Exercise 3's arithmetic is plain host code (Entry, entry_points.hpp).
// Exercises 1 and 4 run on every rank of a communicator (RankEntry,
// rank_entries.hpp): backend().run(entry::ring_all_reduce, c, kind) gives
// each rank its buffers, runs the student's function on every rank and
// returns every rank's output, the bytes each rank sent to each peer and
// the messages. Exercise 2 has one host thread drive every rank through
// NCCL's own API, so it is a call of its own (through_nccl).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "cudalab/harness/rank_entries.hpp"

namespace lab04::harness {

using cudalab::comm::Collective;
using cudalab::comm::CollectiveCase;
using cudalab::harness::CommKind;
using cudalab::harness::Entry;
using cudalab::harness::Message;
using cudalab::harness::RankEntry;
using cudalab::harness::RanksRun;

namespace entry {
// Exercise 1: the four collectives by hand on Comm send/recv, in
// kCollectives' order (by_hand(which)).
inline constexpr std::array<RankEntry, 4> kByHand{{{"all_reduce_by_hand"},
                                                   {"broadcast_by_hand"},
                                                   {"all_gather_by_hand"},
                                                   {"reduce_scatter_by_hand"}}};
inline const RankEntry& by_hand(Collective which) {
  return kByHand[static_cast<std::size_t>(which)];
}

// Exercise 3: nccl-tests' S in bytes, algbw in GB/s, and busbw / algbw.
inline constexpr Entry<double(Collective which, std::size_t count, std::size_t element_bytes,
                              int ranks)>
    message_bytes{"message_bytes"};
inline constexpr Entry<double(double bytes, double seconds)> algbw_gbps{"algbw_gbps"};
inline constexpr Entry<double(Collective which, int ranks)> busbw_factor{"busbw_factor"};

// Exercise 4: the ring all-reduce (c.which is all_reduce), and the same
// stopped after its reduce-scatter phase (rank r's chunk (r + 1) mod n is
// the sum there; the rest is undefined).
inline constexpr RankEntry ring_all_reduce{"ring_all_reduce"};
inline constexpr RankEntry ring_until_reduce_scatter{"ring_until_reduce_scatter"};
}  // namespace entry

class Backend : public cudalab::harness::RanksBackend {
 public:
  // Exercise 2: the student's NCCL calls, one thread driving every rank
  // (rank r on device r, or n - 1 - r with c.devices_reversed).
  virtual RanksRun through_nccl(const CollectiveCase& c) = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same two over solutions/, whatever the tests grade.
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab04::harness
