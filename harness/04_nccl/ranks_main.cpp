// lab04_ranks: your exercise 1 collectives and exercise 4 ring on as many
// ranks as you ask for, on the communicator you pick:
//
//   ./lab run 04 --ranks 8                     the best there is (below)
//   ./lab run 04 --ranks 3 --backend threads   ranks as threads, emulator devices
//   ./lab run 04 --ranks 4 --backend device-sim    streams of one GPU
//   ./lab run 04 --ranks 2 --backend nccl      NCCL, one GPU per rank
//   mpirun -np 2 build/student/lab04_ranks --mpi  one process per GPU (where
//                                              CMake found MPI)
//
// The best: NCCL over the visible GPUs when there are at least as many as
// ranks, else the one-GPU simulation, else (no GPU) threads on the emulator.
// Inputs are random integers as the tests make them (the seed is printed);
// each check prints ok or the first wrong rank and element, and the ring's
// line says the bytes each rank sent against the ring's 2 (n - 1) chunks.
// Under --mpi, rank 0 makes the NCCL id and MPI_Bcast's it with the seed;
// each process takes the GPU of its rank on its node and checks its rank.
// The exit status is 0 when every check passed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "collective_reference.hpp"

#if CUDALAB_WITH_MPI
#include <mpi.h>
#endif

namespace {

namespace harness = lab04::harness;
using cudalab::comm::Collective;

struct Options {
  int ranks = 0;
  std::string backend = "best";
  std::size_t count = 1001;  // does not divide by most rank counts
  bool mpi = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--ranks" && has_value) {
      o.ranks = std::atoi(argv[++i]);
    } else if (arg == "--backend" && has_value) {
      o.backend = argv[++i];
    } else if (arg == "--count" && has_value) {
      o.count = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--mpi") {
      o.mpi = true;
    } else {
      throw std::invalid_argument("unknown argument '" + arg +
                                  "' (use --ranks N [--backend nccl|threads|device-sim] "
                                  "[--count C], or --mpi under mpirun)");
    }
  }
  if (!o.mpi && (o.ranks < 1 || o.ranks > 64)) {
    throw std::invalid_argument("--ranks needs a number from 1 to 64");
  }
  if (o.backend != "best" && o.backend != "nccl" && o.backend != "threads" &&
      o.backend != "device-sim") {
    throw std::invalid_argument("--backend " + o.backend + ": use nccl, threads or device-sim");
  }
  return o;
}

// The backend and communicator for --backend; says why when impossible.
std::unique_ptr<harness::Backend> pick(const Options& o, harness::CommKind* kind) {
  std::string why_not;
  if (o.backend == "threads") {
    *kind = harness::CommKind::simulated;
    return harness::make_emulator_backend();
  }
  std::unique_ptr<harness::Backend> gpu = harness::make_gpu_backend(&why_not);
  if (o.backend == "best") {
    if (!gpu) {
      *kind = harness::CommKind::simulated;
      return harness::make_emulator_backend();
    }
    *kind = o.ranks <= gpu->nccl_devices() ? harness::CommKind::nccl : harness::CommKind::simulated;
    return gpu;
  }
  if (!gpu) throw std::runtime_error("--backend " + o.backend + " needs a GPU: " + why_not);
  *kind = o.backend == "nccl" ? harness::CommKind::nccl : harness::CommKind::simulated;
  if (*kind == harness::CommKind::nccl && o.ranks > gpu->nccl_devices()) {
    throw std::runtime_error("--backend nccl: " + std::to_string(o.ranks) + " ranks, " +
                             std::to_string(gpu->nccl_devices()) +
                             " GPUs (NCCL needs one per rank; try --backend device-sim)");
  }
  return gpu;
}

// "8 ranks send 7.0 KiB each to the next rank only" or what is off.
std::string ring_traffic(const harness::Traffic& t, std::size_t count) {
  const int n = t.ranks;
  std::string off;
  for (int r = 0; r < n; ++r) {
    const std::uint64_t ring = harness::ring_bytes_sent(r, count, n);
    if (t.sent_by(r) != ring || t.sent(r, (r + 1) % n) != t.sent_by(r)) {
      off += " rank " + std::to_string(r) + " sent " + std::to_string(t.sent_by(r)) +
             " bytes (to the next rank: " + std::to_string(t.sent(r, (r + 1) % n)) +
             "), the ring sends " + std::to_string(ring) + ";";
    }
  }
  return off.empty() ? "" : "traffic:" + off;
}

int run_in_process(const Options& o) {
  harness::CommKind kind{};
  const std::unique_ptr<harness::Backend> backend = pick(o, &kind);
  const std::uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  const auto random = [&rng](int, std::size_t) { return rng() % 1000; };
  int failed = 0;
  std::string comm;
  const auto report = [&](const std::string& name, const harness::RanksRun& run,
                          const harness::CollectiveCase& c, const std::string& extra) {
    comm = run.comm;
    std::string problem = run.observation.failed() ? run.observation.error : "";
    if (problem.empty()) {
      if (const auto wrong = harness::first_mismatch(run.outputs, harness::expected_outputs(c))) {
        problem = *wrong;
      }
    }
    if (problem.empty()) problem = extra;
    failed += problem.empty() ? 0 : 1;
    std::printf("  %-24s %s\n", name.c_str(),
                problem.empty() ? "ok" : ("FAILED: " + problem).c_str());
  };
  std::printf("lab04_ranks: %d ranks, %zu floats per rank, seed %llu\n", o.ranks, o.count,
              static_cast<unsigned long long>(seed));
  for (const auto& collective : cudalab::comm::kCollectives) {
    const Collective which = collective.which;
    const harness::CollectiveCase c =
        harness::make_case(which, o.ranks, o.count, false, o.ranks - 1, random);
    report(std::string(cudalab::comm::to_string(which)) + "_by_hand", backend->by_hand(c, kind), c,
           "");
  }
  const harness::CollectiveCase c =
      harness::make_case(Collective::all_reduce, o.ranks, o.count, false, 0, random);
  const harness::RanksRun ring = backend->ring(c, harness::RingStop::complete, kind);
  report("ring_all_reduce", ring, c,
         ring.observation.failed() ? "" : ring_traffic(ring.traffic, o.count));
  std::printf("on %s (%s)\n", comm.c_str(), backend->name().c_str());
  return failed == 0 ? 0 : 1;
}

#if CUDALAB_WITH_MPI
void check_mpi(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  std::fprintf(stderr, "lab04_ranks: %s failed (MPI error %d)\n", what, status);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

// This process's rank among the processes of its node.
int local_rank() {
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int rank = 0;
  check_mpi(MPI_Comm_rank(node, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_free(&node), "MPI_Comm_free");
  return rank;
}

int run_under_mpi(int argc, char** argv, const Options& o) {
  check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0, ranks = 1;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  int failed = 0;
  try {
    std::string why_not;
    const auto backend = harness::make_gpu_backend(&why_not);
    if (!backend) throw std::runtime_error("no usable GPU: " + why_not);
    const int device = local_rank();
    if (device >= backend->nccl_devices()) {
      throw std::runtime_error("process " + std::to_string(rank) + " is number " +
                               std::to_string(device) + " on its node, which has " +
                               std::to_string(backend->nccl_devices()) +
                               " GPUs: start at most one process per GPU");
    }
    std::vector<char> id = rank == 0 ? backend->new_nccl_id() : std::vector<char>(128);
    check_mpi(MPI_Bcast(id.data(), static_cast<int>(id.size()), MPI_CHAR, 0, MPI_COMM_WORLD),
              "MPI_Bcast of the NCCL id");
    std::uint64_t seed = std::random_device{}();
    check_mpi(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast of the seed");
    const std::vector<harness::ProcessCheck> checks =
        backend->check_as_process(id, ranks, rank, device, seed, o.count);
    if (rank == 0) {
      std::printf("lab04_ranks: %d processes, one GPU each, %zu floats per rank, seed %llu\n",
                  ranks, o.count, static_cast<unsigned long long>(seed));
    }
    for (const harness::ProcessCheck& check : checks) {
      // The first rank (lowest) whose check failed reports it.
      int mine = check.problem.empty() ? ranks : rank;
      int first = ranks;
      check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
      if (first == ranks && rank == 0) std::printf("  %-24s ok\n", check.name.c_str());
      if (first != ranks) {
        ++failed;
        if (rank == first) {
          std::printf("  %-24s FAILED on rank %d: %s\n", check.name.c_str(), rank,
                      check.problem.c_str());
        }
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab04_ranks: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  check_mpi(MPI_Finalize(), "MPI_Finalize");
  return failed == 0 ? 0 : 1;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    if (o.mpi) {
#if CUDALAB_WITH_MPI
      return run_under_mpi(argc, argv, o);
#else
      throw std::runtime_error("--mpi: this lab04_ranks was built without MPI (CMake found none)");
#endif
    }
    return run_in_process(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab04_ranks: %s\n", e.what());
    return 2;
  }
}
