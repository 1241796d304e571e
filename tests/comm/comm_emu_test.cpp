// cudalab::comm on the emulator (label emu): SimComm with a virtual device
// per rank, and the emulator's NCCL. Besides the results, what a student
// sees when the communication is wrong: a deadlock, mismatched calls, a rank
// that leaves or never joins, a bad peer — each a clear error, never a hang.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "comm_cases.hpp"
#include "cudalab/comm/nccl_comm.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/nccl.hpp"

namespace comm_tests {
namespace {

using cudalab::comm::CommError;
using cudalab::comm::SimWorld;

// The emulator with `ranks` virtual devices for the scope of a test.
class Devices {
 public:
  explicit Devices(int ranks) : scoped_(with_devices(ranks)) {}

 private:
  static cudalab::emu::Options with_devices(int ranks) {
    cudalab::emu::Options options = cudalab::emu::options();
    options.devices = static_cast<unsigned>(ranks);
    return options;
  }
  cudalab::emu::ScopedOptions scoped_;
};

RankRunner on_sim(int ranks, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  return [ranks, timeout](const std::function<void(Comm&)>& body) {
    SimWorld world(cudalab::comm::one_device_per_rank(ranks), timeout);
    return cudalab::comm::run_ranks(world, body, "threads (emulator devices)");
  };
}

std::mt19937 seeded() {
  const unsigned seed = std::random_device{}();
  std::cout << "seed " << seed << "\n";
  return std::mt19937(seed);
}

// The message of what `run` threw, or "" if it did not throw.
std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(EmuComm, CollectivesOnEveryRankCount) {
  std::mt19937 rng = seeded();
  for (const int ranks : {1, 2, 3, 5}) {
    Devices devices(ranks);
    check_every_collective(on_sim(ranks), ranks, rng);
  }
}

TEST(EmuComm, GroupedRingExchangeAndTraffic) {
  std::mt19937 rng = seeded();
  for (const int ranks : {1, 2, 3, 8}) {
    Devices devices(ranks);
    check_ring_exchange(on_sim(ranks), ranks, 1 + rng() % 1000, rng);
    check_ring_exchange(on_sim(ranks), ranks, 1 + rng() % 1000, rng, /*stream_ordered=*/true);
  }
}

TEST(EmuComm, UngroupedExchangeIsAReportedDeadlock) {
  Devices devices(3);
  const std::string error = error_of([] {
    on_sim(3)([](Comm& comm) {
      cudalab::DeviceBuffer<int> a(std::vector<int>(4, comm.rank())), b(4);
      comm.send(a.data(), 4, (comm.rank() + 1) % 3);  // everyone sends first: nobody receives
      comm.recv(b.data(), 4, (comm.rank() + 2) % 3);
    });
  });
  EXPECT_NE(error.find("deadlock"), std::string::npos) << error;
  EXPECT_NE(error.find("rank 0 waits in send of 4 i32 to rank 1"), std::string::npos) << error;
  EXPECT_NE(error.find("group_start()/group_end()"), std::string::npos) << error;
}

TEST(EmuComm, MismatchedCountsAreNamed) {
  Devices devices(2);
  const std::string error = error_of([] {
    on_sim(2)([](Comm& comm) {
      cudalab::DeviceBuffer<float> a(std::vector<float>(8, 1.0f));
      if (comm.rank() == 0) comm.send(a.data(), 8, 1);
      if (comm.rank() == 1) comm.recv(a.data(), 7, 0);
    });
  });
  EXPECT_NE(error.find("rank 0 posts a send of 8 f32 to rank 1, but rank 1 posts a recv of 7 f32"),
            std::string::npos)
      << error;
}

TEST(EmuComm, MismatchedCollectivesAreNamed) {
  Devices devices(2);
  const std::string error = error_of([] {
    on_sim(2)([](Comm& comm) {
      cudalab::DeviceBuffer<float> a(std::vector<float>(8, 1.0f));
      if (comm.rank() == 0) comm.all_reduce(a.data(), a.data(), 8, DataType::f32, ReduceOp::sum);
      if (comm.rank() == 1) comm.broadcast(a.data(), a.data(), 8, DataType::f32, 0);
    });
  });
  EXPECT_NE(error.find("collective mismatch"), std::string::npos) << error;
}

TEST(EmuComm, ARankThatLeavesIsNamed) {
  Devices devices(2);
  const std::string error = error_of([] {
    on_sim(2)([](Comm& comm) {
      cudalab::DeviceBuffer<float> a(4);
      if (comm.rank() == 0) comm.recv(a.data(), 4, 1);  // rank 1 returns without sending
    });
  });
  EXPECT_NE(error.find("rank 1 has left"), std::string::npos) << error;
}

TEST(EmuComm, ARankStuckElsewhereTimesOut) {
  Devices devices(2);
  const auto started = std::chrono::steady_clock::now();
  const std::string error = error_of([] {
    on_sim(2, std::chrono::milliseconds(300))([](Comm& comm) {
      cudalab::DeviceBuffer<float> a(4);
      if (comm.rank() == 0) comm.recv(a.data(), 4, 1);
      if (comm.rank() == 1) std::this_thread::sleep_for(std::chrono::seconds(2));
    });
  });
  EXPECT_NE(error.find("rank 0 waited 0.3 s in recv of 4 f32 from rank 1"), std::string::npos)
      << error;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(EmuComm, BadArgumentsChangeNothing) {
  Devices devices(2);
  const std::string bad_peer = error_of([] {
    on_sim(2)([](Comm& comm) {
      cudalab::DeviceBuffer<float> a(4);
      comm.send(a.data(), 4, 2);
    });
  });
  EXPECT_NE(bad_peer.find("rank 2 is not in this communicator of 2 ranks"), std::string::npos)
      << bad_peer;
  const std::string null_buffer = error_of(
      [] { on_sim(2)([](Comm& comm) { comm.recv(static_cast<float*>(nullptr), 4, 0); }); });
  EXPECT_NE(null_buffer.find("null buffer"), std::string::npos) << null_buffer;
  const std::string unbalanced = error_of([] { on_sim(1)([](Comm& comm) { comm.group_end(); }); });
  EXPECT_NE(unbalanced.find("group_end on rank 0 without group_start"), std::string::npos)
      << unbalanced;
}

TEST(EmuComm, BarrierWaitsForEveryRank) {
  Devices devices(3);
  std::vector<int> before(3, 0);
  std::vector<int> seen(3, 0);
  on_sim(3)([&](Comm& comm) {
    before[static_cast<std::size_t>(comm.rank())] = 1;
    comm.barrier();
    int all = 0;
    for (const int b : before) all += b;
    seen[static_cast<std::size_t>(comm.rank())] = all;
  });
  EXPECT_EQ(seen, std::vector<int>(3, 3));
}

// The emulator's NCCL, through NcclComm: a communicator per rank thread,
// made by ncclCommInitRank.
TEST(EmuNccl, NcclCommOverTheEmulatorsNccl) {
  std::mt19937 rng = seeded();
  for (const int ranks : {1, 2, 4}) {
    Devices devices(ranks);
    const RankRunner on_nccl = [ranks](const std::function<void(Comm&)>& body) {
      return cudalab::comm::run_nccl_ranks(ranks, body);
    };
    check_every_collective(on_nccl, ranks, rng);
    check_ring_exchange(on_nccl, ranks, 1 + rng() % 1000, rng);
  }
}

// CUDALAB_NCCL_TIMEOUT_S for a scope (read when a communicator is made).
class NcclTimeout {
 public:
  explicit NcclTimeout(const char* seconds) { setenv("CUDALAB_NCCL_TIMEOUT_S", seconds, 1); }
  ~NcclTimeout() { unsetenv("CUDALAB_NCCL_TIMEOUT_S"); }
  NcclTimeout(const NcclTimeout&) = delete;
  NcclTimeout& operator=(const NcclTimeout&) = delete;
};

TEST(EmuNccl, ARankThatNeverJoinsTimesOut) {
  Devices devices(2);
  NcclTimeout timeout("0.3");
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  ncclComm_t comm = nullptr;
  EXPECT_EQ(ncclCommInitRank(&comm, 2, id, 0), ncclInvalidUsage);
  const std::string detail = ncclGetLastError(nullptr);
  EXPECT_NE(detail.find("1 of 2 ranks joined; ranks 1 never did"), std::string::npos) << detail;
}

TEST(EmuNccl, TwoRanksOnOneDeviceAreRefused) {
  Devices devices(2);
  ncclComm_t comms[2] = {nullptr, nullptr};
  const int both_on_zero[2] = {0, 0};
  EXPECT_EQ(ncclCommInitAll(comms, 2, both_on_zero), ncclInvalidUsage);
  const std::string detail = ncclGetLastError(nullptr);
  EXPECT_NE(detail.find("Duplicate GPU detected"), std::string::npos) << detail;
}

// One thread driving two ranks without a group: rank 0's all-reduce waits
// for rank 1's, which this thread never gets to. A deadlock after the grace
// second, with the reason, through NCCL_CHECK, long before the time-out.
TEST(EmuNccl, OneThreadWithoutAGroupIsADeadlock) {
  Devices devices(2);
  ncclComm_t comms[2] = {nullptr, nullptr};
  NCCL_CHECK(ncclCommInitAll(comms, 2, nullptr));
  cudalab::DeviceBuffer<float> data(std::vector<float>(4, 1.0f));
  const auto started = std::chrono::steady_clock::now();
  const std::string error = error_of([&] {
    NCCL_CHECK(ncclAllReduce(data.data(), data.data(), 4, ncclFloat32, ncclSum, comms[0], nullptr));
  });
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_NE(error.find("ncclInvalidUsage"), std::string::npos) << error;
  EXPECT_NE(error.find("deadlock: rank 0 waits in all_reduce of 4 f32"), std::string::npos)
      << error;
  EXPECT_NE(error.find("ncclGroupStart()/ncclGroupEnd()"), std::string::npos) << error;
  for (ncclComm_t c : comms) NCCL_CHECK(ncclCommDestroy(c));
}

// ncclCommInitAll's communicators handed to a thread each: no false deadlock.
TEST(EmuNccl, CommunicatorsOfInitAllMayGoToThreads) {
  Devices devices(2);
  ncclComm_t comms[2] = {nullptr, nullptr};
  NCCL_CHECK(ncclCommInitAll(comms, 2, nullptr));
  std::vector<float> got(2, 0.0f);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      CUDA_CHECK(cudaSetDevice(r));
      cudalab::DeviceBuffer<float> data(std::vector<float>(4, static_cast<float>(r + 1)));
      if (r == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
      NCCL_CHECK(
          ncclAllReduce(data.data(), data.data(), 4, ncclFloat32, ncclSum, comms[r], nullptr));
      CUDA_CHECK(cudaStreamSynchronize(nullptr));
      got[static_cast<std::size_t>(r)] = data.copy_to_host()[3];
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(got, std::vector<float>(2, 3.0f));
  for (ncclComm_t c : comms) NCCL_CHECK(ncclCommDestroy(c));
}

TEST(EmuNccl, UnsupportedTypesAndMisuseAreNamed) {
  Devices devices(1);
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitAll(&comm, 1, nullptr));
  cudalab::DeviceBuffer<float> data(std::vector<float>(4, 1.0f));
  EXPECT_EQ(ncclAllReduce(data.data(), data.data(), 8, ncclFloat16, ncclSum, comm, nullptr),
            ncclInvalidArgument);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("is not emulated"), std::string::npos);
  EXPECT_EQ(ncclSend(data.data(), 4, ncclFloat32, 3, comm, nullptr), ncclInvalidArgument);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("rank 3 is not among the 1 ranks"),
            std::string::npos);
  const std::string error = error_of([] { NCCL_CHECK(ncclGroupEnd()); });
  EXPECT_NE(error.find("ncclGroupEnd without ncclGroupStart"), std::string::npos) << error;
  NCCL_CHECK(ncclCommDestroy(comm));
}

}  // namespace
}  // namespace comm_tests
