// Lab 04 behind one interface, whichever backend runs it.
//
// backend_impl.hpp, built by the host compiler (ranks as host threads over
// the emulator's virtual devices, one per rank, and the emulator's NCCL) and
// by nvcc (simulated ranks as streams of one GPU, and real NCCL over one GPU
// per rank), includes the lab's files and implements Backend. Each call
// runs one collective on `ranks` ranks with the student's code and returns
// every rank's output and the bytes each rank sent to each peer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/comm/comm.hpp"
#include "cudalab/harness/observation.hpp"

namespace lab04::harness {

using cudalab::comm::Collective;
using cudalab::comm::Traffic;
using cudalab::harness::Observation;

// One call: `inputs[r]` is rank r's send buffer (count elements, or
// ranks * count for reduce_scatter); in_place puts send and recv in one
// buffer as NCCL defines it (all_gather: send is recv + rank * count;
// reduce_scatter: recv is send + rank * count).
struct CollectiveCase {
  Collective which = Collective::all_reduce;
  std::size_t count = 0;  // elements per rank, NCCL's count
  int root = 0;           // broadcast only
  bool in_place = false;
  // through_nccl only: rank r on device n - 1 - r, so that a communicator
  // not made on the given device list shows (needs n devices).
  bool devices_reversed = false;
  std::vector<std::vector<float>> inputs;  // one per rank
  int ranks() const { return static_cast<int>(inputs.size()); }
};

// Which communicator runs the student's Comm code.
enum class CommKind {
  simulated,  // SimComm: emulator devices, or streams of one GPU
  nccl,       // NcclComm: one GPU per rank (emulator: the emulator's NCCL)
};

// Where the ring stops (exercise 4).
enum class RingStop { after_reduce_scatter, complete };

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

// One timed collective (exercise 5, the benchmark).
struct TimedCollective {
  double ms = 0;            // median over the repeats of the slowest rank's time
  std::uint64_t wrong = 0;  // elements of any rank's output that are wrong (#wrong)
};

// One check of a process in an MPI job (lab04_ranks --mpi): "" when right.
struct ProcessCheck {
  std::string name;     // "all_reduce_by_hand", "ring_all_reduce", ...
  std::string problem;  // what this process's rank got wrong, or its error
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual bool is_emulator() const = 0;

  // Devices NCCL can put ranks on (one rank per device).
  virtual int nccl_devices() const = 0;

  // Exercise 1: the student's collective written with Comm send/recv.
  virtual RanksRun by_hand(const CollectiveCase& c, CommKind comm) = 0;
  // Exercise 2: the student's NCCL calls, one thread driving every rank.
  virtual RanksRun through_nccl(const CollectiveCase& c) = 0;
  // Exercise 4: the student's ring all-reduce (c.which is all_reduce).
  virtual RanksRun ring(const CollectiveCase& c, RingStop stop, CommKind comm) = 0;

  // Exercise 5 (the benchmark): `which` as the communicator's own
  // collective, or with student_ring the student's ring all-reduce on it, on
  // `ranks` devices (one rank each): CommKind::nccl is NcclComm (NCCL's
  // collectives, the ring over ncclSend/ncclRecv), CommKind::simulated is
  // SimComm with a device per rank (the ring's messages as peer copies by
  // the copy engines). In place, `count` elements per rank (NCCL's count);
  // every rank starts each run together (after a barrier); one warm-up run.
  virtual TimedCollective time_collective(Collective which, bool student_ring, CommKind kind,
                                          int ranks, std::size_t count, int repeats) = 0;

  // One process per GPU (lab04_ranks --mpi, under mpirun): rank 0 makes an NCCL id
  // (new_nccl_id) that every process receives; then each process runs the
  // student's four collectives by hand and ring all-reduce over NcclComm as
  // `rank` of `ranks` on `device`. Every process makes every rank's inputs
  // from `seed` and checks its own rank's outputs. GPU backend only.
  virtual std::vector<char> new_nccl_id() = 0;
  virtual std::vector<ProcessCheck> check_as_process(const std::vector<char>& id, int ranks,
                                                     int rank, int device, std::uint64_t seed,
                                                     std::size_t count) = 0;

  // Exercise 3, the student's arithmetic (pure functions).
  virtual double message_bytes(Collective which, std::size_t count, std::size_t element_bytes,
                               int ranks) const = 0;
  virtual double algbw_gbps(double bytes, double seconds) const = 0;
  virtual double busbw_factor(Collective which, int ranks) const = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not);
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not);

}  // namespace lab04::harness
