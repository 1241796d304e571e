// The program that runs a lab's rank checks (RankCheck, rank_entries.hpp)
// on as many ranks as asked, on the communicator picked, or one process per
// GPU under mpirun (where CMake found MPI: CUDALAB_WITH_MPI):
//
//   int main(int argc, char** argv) {
//     return cudalab::harness::ranks_main(argc, argv, {"lab04_ranks", make_emulator_backend,
//                                                      make_gpu_backend, checks});
//   }
//
//   labNN_ranks --ranks N [--backend nccl|threads|device-sim] [--count C]
//   mpirun -np 2 labNN_ranks --mpi [--count C]
//
// The default backend is the best there is: NCCL over the visible GPUs when
// there are at least as many as ranks, else the one-GPU simulation, else (no
// GPU) threads on the emulator. The checks' inputs come from a random seed
// (printed; under --mpi rank 0 broadcasts it with the NCCL id it makes); each
// check prints ok or the first wrong rank and element; under --mpi each
// process takes the GPU of its rank on its node and checks its own rank,
// and the lowest failing rank reports. The exit status is 0 when every check
// passed, 1 when one failed, 2 when the program could not run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/harness/rank_entries.hpp"

#if CUDALAB_WITH_MPI
#include <mpi.h>
#endif

namespace cudalab::harness {

struct RanksProgram {
  std::string name;  // "lab04_ranks"
  std::function<std::unique_ptr<RanksBackend>()> make_emulator_backend;
  std::function<std::unique_ptr<RanksBackend>(std::string* why_not)> make_gpu_backend;
  // The checks on `ranks` ranks of `count` elements each, inputs from `seed`.
  std::function<std::vector<RankCheck>(int ranks, std::size_t count, std::uint64_t seed)> checks;
};

namespace ranks_detail {

struct Options {
  int ranks = 0;
  std::string backend = "best";
  std::size_t count = 1001;  // does not divide by most rank counts
  bool mpi = false;
};

inline Options parse(int argc, char** argv) {
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
inline std::unique_ptr<RanksBackend> pick(const RanksProgram& program, const Options& o,
                                          CommKind* kind) {
  *kind = CommKind::simulated;
  if (o.backend == "threads") return program.make_emulator_backend();
  std::string why_not;
  std::unique_ptr<RanksBackend> gpu = program.make_gpu_backend(&why_not);
  if (o.backend == "best") {
    if (!gpu) return program.make_emulator_backend();
    if (o.ranks <= gpu->nccl_devices()) *kind = CommKind::nccl;
    return gpu;
  }
  if (!gpu) throw std::runtime_error("--backend " + o.backend + " needs a GPU: " + why_not);
  if (o.backend == "nccl") *kind = CommKind::nccl;
  if (*kind == CommKind::nccl && o.ranks > gpu->nccl_devices()) {
    throw std::runtime_error("--backend nccl: " + std::to_string(o.ranks) + " ranks, " +
                             std::to_string(gpu->nccl_devices()) +
                             " GPUs (NCCL needs one per rank; try --backend device-sim)");
  }
  return gpu;
}

inline int run_in_process(const RanksProgram& program, const Options& o) {
  CommKind kind{};
  const std::unique_ptr<RanksBackend> backend = pick(program, o, &kind);
  const std::uint64_t seed = std::random_device{}();
  std::printf("%s: %d ranks, %zu floats per rank, seed %llu\n", program.name.c_str(), o.ranks,
              o.count, static_cast<unsigned long long>(seed));
  int failed = 0;
  std::string comm;
  for (const RankCheck& check : program.checks(o.ranks, o.count, seed)) {
    const RanksRun run = backend->run(check.entry, check.c, kind);
    comm = run.comm;
    std::string problem = run.observation.failed() ? run.observation.error : "";
    if (problem.empty()) {
      if (const auto wrong = comm::first_mismatch(run.outputs, comm::expected_outputs(check.c))) {
        problem = *wrong;
      }
    }
    if (problem.empty() && !run.observation.failed() && check.traffic_problem) {
      problem = check.traffic_problem(run.traffic);
    }
    failed += problem.empty() ? 0 : 1;
    std::printf("  %-24s %s\n", std::string(check.entry.name).c_str(),
                problem.empty() ? "ok" : ("FAILED: " + problem).c_str());
  }
  std::printf("on %s (%s)\n", comm.c_str(), backend->name().c_str());
  return failed == 0 ? 0 : 1;
}

#if CUDALAB_WITH_MPI
inline void check_mpi(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  std::fprintf(stderr, "%s failed (MPI error %d)\n", what, status);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

// This process's rank among the processes of its node.
inline int local_rank() {
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int rank = 0;
  check_mpi(MPI_Comm_rank(node, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_free(&node), "MPI_Comm_free");
  return rank;
}

inline int run_under_mpi(const RanksProgram& program, int argc, char** argv, const Options& o) {
  check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0, ranks = 1;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  int failed = 0;
  try {
    std::string why_not;
    const auto backend = program.make_gpu_backend(&why_not);
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
    const std::vector<ProcessCheck> checks =
        backend->check_as_process(id, ranks, rank, device, program.checks(ranks, o.count, seed));
    if (rank == 0) {
      std::printf("%s: %d processes, one GPU each, %zu floats per rank, seed %llu\n",
                  program.name.c_str(), ranks, o.count, static_cast<unsigned long long>(seed));
    }
    for (const ProcessCheck& check : checks) {
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
    std::fprintf(stderr, "%s: rank %d: %s\n", program.name.c_str(), rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  check_mpi(MPI_Finalize(), "MPI_Finalize");
  return failed == 0 ? 0 : 1;
}
#endif

}  // namespace ranks_detail

inline int ranks_main(int argc, char** argv, const RanksProgram& program) {
  try {
    const ranks_detail::Options o = ranks_detail::parse(argc, argv);
    if (o.mpi) {
#if CUDALAB_WITH_MPI
      return ranks_detail::run_under_mpi(program, argc, argv, o);
#else
      throw std::runtime_error("--mpi: " + program.name +
                               " was built without MPI (CMake found none)");
#endif
    }
    return ranks_detail::run_in_process(program, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program.name.c_str(), e.what());
    return 2;
  }
}

}  // namespace cudalab::harness
