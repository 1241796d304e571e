// lab04_ranks: your exercise 1 collectives and exercise 4 ring on as many
// ranks as you ask for, on the communicator you pick
// (cudalab/harness/ranks_main.hpp says how each is picked):
//
//   ./lab run 04 --ranks 8                     the best there is
//   ./lab run 04 --ranks 3 --backend threads   ranks as threads, emulator devices
//   ./lab run 04 --ranks 4 --backend device-sim    streams of one GPU
//   ./lab run 04 --ranks 2 --backend nccl      NCCL, one GPU per rank
//   mpirun -np 2 build/student/lab04_ranks --mpi  one process per GPU (where
//                                              CMake found MPI)
//
// Inputs are random integers as the tests make them (the seed is printed);
// each check prints ok or the first wrong rank and element, and the ring's
// line says the bytes each rank sent against the ring's 2 (n - 1) chunks.
#include <random>

#include "backend.hpp"
#include "cudalab/harness/ranks_main.hpp"
#include "ring_reference.hpp"

namespace {

namespace harness = lab04::harness;

// The four collectives by hand (broadcast from the last rank), then the ring.
std::vector<cudalab::harness::RankCheck> lab_checks(int ranks, std::size_t count,
                                                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto random = [&rng](int, std::size_t) { return rng() % 1000; };
  std::vector<cudalab::harness::RankCheck> checks;
  for (const auto& collective : cudalab::comm::kCollectives) {
    checks.push_back(
        {harness::entry::by_hand(collective.which),
         cudalab::comm::make_case(collective.which, ranks, count, false, ranks - 1, random),
         nullptr});
  }
  checks.push_back({harness::entry::ring_all_reduce,
                    cudalab::comm::make_case(cudalab::comm::Collective::all_reduce, ranks, count,
                                             false, 0, random),
                    [count](const cudalab::comm::Traffic& t) {
                      return harness::ring_traffic_problem(t, count);
                    }});
  return checks;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::ranks_main(
      argc, argv,
      {"lab04_ranks", harness::make_emulator_backend, harness::make_gpu_backend, lab_checks});
}
