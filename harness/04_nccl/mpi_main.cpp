// lab04_mpi: lab 04 with one process per GPU, the way multi-node NCCL
// programs (and nccl-tests) run:
//
//   mpirun -np 2 build/staff/lab04_mpi [--count N]
//
// Rank 0 makes the NCCL id and MPI_Bcast's it; each process takes the GPU of
// its rank on its node (MPI's shared-memory split), joins the communicator
// (NcclComm: ncclCommInitRank) and runs your exercise 1 collectives and your
// ring all-reduce on it; every process makes every rank's inputs from one
// seed (rank 0's, broadcast too) and checks its own rank's output. Rank 0
// prints one line per check, with the first wrong rank; the exit status is
// 0 when every check passed on every rank. Built where CMake finds MPI.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend.hpp"

namespace {

namespace harness = lab04::harness;

void check_mpi(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  std::fprintf(stderr, "lab04_mpi: %s failed (MPI error %d)\n", what, status);
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

}  // namespace

int main(int argc, char** argv) {
  check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0, ranks = 1;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &ranks), "MPI_Comm_size");
  std::size_t count = 1001;  // does not divide by most rank counts
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--count") == 0) count = std::strtoull(argv[i + 1], nullptr, 10);
  }
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
        backend->check_as_process(id, ranks, rank, device, seed, count);
    if (rank == 0) {
      std::printf("lab04_mpi: %d processes, one GPU each, %zu floats per rank, seed %llu\n", ranks,
                  count, static_cast<unsigned long long>(seed));
    }
    for (const harness::ProcessCheck& check : checks) {
      // The first rank (lowest) whose check failed reports it.
      int mine = check.problem.empty() ? ranks : rank;
      int first = ranks;
      check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
      if (first == ranks && rank == 0) std::printf("  %-26s ok\n", check.name.c_str());
      if (first != ranks) {
        ++failed;
        if (rank == first) {
          std::printf("  %-26s FAILED on rank %d: %s\n", check.name.c_str(), rank,
                      check.problem.c_str());
        }
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab04_mpi: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  check_mpi(MPI_Finalize(), "MPI_Finalize");
  return failed == 0 ? 0 : 1;
}
