// A lab's code that runs on every rank of a communicator (lab 04's
// collectives by hand, its ring all-reduce), declared once and called
// through one interface, whichever backend and communicator run it:
//
//   // harness/04_nccl/backend.hpp (seen by tests, backends, viewer, programs)
//   inline constexpr RankEntry ring_all_reduce{"ring_all_reduce"};
//
//   // harness/04_nccl/backend_impl.hpp (built once per backend)
//   bind(entry::ring_all_reduce, [](Comm& comm, const float* send, float* recv,
//                                   std::size_t count, int) { lab04::ring_all_reduce(...); });
//
//   // a test: every rank's output, the traffic, the messages
//   const RanksRun run = backend().run(entry::ring_all_reduce, c, CommKind::simulated);
//
// A rank entry is not an Entry (entry_points.hpp): its function takes the
// rank's Comm, whose type is each backend's own, and one call starts a
// host thread per rank, gives each its buffers and waits for all of them,
// so the backend runs it (RanksBackendFor, rank_calls.hpp) instead of
// staging one output. Every entry has NCCL's collective signature: the
// rank's send and recv buffers, the count per rank and the root.
// Nothing here depends on the backend (the types it uses from comm.hpp are
// outside its inline namespace), so the tests include it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cudalab/comm/collective_reference.hpp"
#include "cudalab/harness/entry_points.hpp"
#include "cudalab/harness/observation.hpp"

namespace cudalab::harness {

using cudalab::comm::Collective;
using cudalab::comm::CollectiveCase;
using cudalab::comm::Traffic;

struct RankEntry {
  std::string_view name;
};

// Which communicator runs the lab's code.
enum class CommKind {
  simulated,  // SimComm: emulator devices, or streams of one GPU
  nccl,       // NcclComm: one GPU per rank (emulator: the emulator's NCCL)
};

// One point-to-point message of a run on simulated ranks, in the order the
// communicator matched them. Offsets are in elements of the sender's and the
// receiver's recv buffers; -1 when the data came from or went elsewhere
// (a separate send buffer, a scratch buffer).
struct Message {
  int from = 0;
  int to = 0;
  int step = 0;  // the sender's message number: 0, 1, ... (a ring's step)
  std::int64_t src_offset = -1;
  std::int64_t dst_offset = -1;
  std::size_t count = 0;  // elements
};

struct RanksRun {
  Observation observation;                  // the error, if any; emulator reports
  std::vector<std::vector<float>> outputs;  // each rank's recv buffer afterwards
  Traffic traffic;                          // bytes sent, by Comm::send
  std::vector<Message> messages;            // simulated ranks only
  std::string comm;                         // the Comm's backend()
};

// One timed collective (the benchmark).
struct TimedCollective {
  double ms = 0;            // median over the repeats of the slowest rank's time
  std::uint64_t wrong = 0;  // elements of any rank's output that are wrong (#wrong)
};

// One entry on one case: what lab04_ranks runs, in one process or in each
// process of an MPI job. `traffic_problem` (in one process only) says what
// is wrong with the bytes the ranks sent, "" when nothing.
struct RankCheck {
  RankEntry entry;
  CollectiveCase c;
  std::function<std::string(const Traffic&)> traffic_problem;
};

// What one process of an MPI job found for one check: "" when right.
struct ProcessCheck {
  std::string name;
  std::string problem;
};

// What a lab with rank entries starts its Backend with (on top of its
// ordinary entry points).
class RanksBackend : public EntryBackend {
 public:
  // Devices NCCL can put ranks on (one rank per device).
  virtual int nccl_devices() const = 0;

  // `entry` on c.ranks() ranks of a fresh communicator of `kind`, each
  // rank's buffers on its device (outputs start as NaN), observed.
  virtual RanksRun run(const RankEntry& entry, const CollectiveCase& c, CommKind kind) = 0;

  // `which` as the communicator's own collective, or `code` (an entry that
  // computes `which`) on it, on `ranks` devices (one rank each): nccl is
  // NcclComm, simulated is SimComm with a device per rank (messages as peer
  // copies by the copy engines). In place, `count` elements per rank; rank
  // r's input is all r + 1; every run starts on every rank together (after
  // a barrier); one warm-up run.
  virtual TimedCollective time_collective(Collective which, const RankEntry* code, CommKind kind,
                                          int ranks, std::size_t count, int repeats) = 0;

  // One process per GPU (under mpirun): rank 0 makes an NCCL id that every
  // process receives; then each process, as `rank` of `ranks` on `device`,
  // runs every check on an NcclComm and checks its own rank's output. GPU
  // backend only.
  virtual std::vector<char> new_nccl_id() = 0;
  virtual std::vector<ProcessCheck> check_as_process(const std::vector<char>& id, int ranks,
                                                     int rank, int device,
                                                     const std::vector<RankCheck>& checks) = 0;
};

}  // namespace cudalab::harness
