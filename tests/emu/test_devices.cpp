// Several virtual devices: the device count, the current device of each host
// thread, ownership of memory, streams and events, ordering across devices,
// peer access and peer copies, and kernels of different host threads
// running side by side (docs/emulator.md, "Several devices").
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "emu_test_support.hpp"
#include "plain_devices.hpp"
#include "plain_streams.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

constexpr int kDevices = 4;
constexpr int kCount = 1024;
constexpr std::size_t kBytes = kCount * sizeof(float);

cudalab::emu::Options with_devices(int devices, const std::string& schedule = "adversarial") {
  cudalab::emu::Options o = quiet();
  o.devices = static_cast<unsigned>(devices);
  o.schedule = schedule;
  return o;
}

// Four devices for the test; at its end every device is reset (its streams,
// events and peer access gone) and the test's thread is back on device 0.
class DevicesTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (void* p : allocations_) {
      EXPECT_EQ(cudaFree(p), cudaSuccess);
    }
    for (int d = kDevices - 1; d >= 0; --d) {
      EXPECT_EQ(cudaSetDevice(d), cudaSuccess);
      EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
    }
  }
  // Device memory of the current device, 0xff bytes... unless filled.
  template <class T>
  T* allocate(std::size_t count) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, count * sizeof(T)), cudaSuccess);
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }
  cudaStream_t stream(unsigned flags = cudaStreamNonBlocking) {
    cudaStream_t s = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
    return s;
  }
  cudaEvent_t event(unsigned flags = cudaEventDefault) {
    cudaEvent_t e = nullptr;
    EXPECT_EQ(cudaEventCreateWithFlags(&e, flags), cudaSuccess);
    return e;
  }
  template <class T>
  T read(const T* device_value) {
    T h{};
    EXPECT_EQ(cudaMemcpy(&h, device_value, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }

  cudalab::emu::ScopedOptions options_{with_devices(kDevices)};
  std::vector<void*> allocations_;
};

int current() {
  int d = -1;
  EXPECT_EQ(cudaGetDevice(&d), cudaSuccess);
  return d;
}

// ---- devices and ownership ------------------------------------------------------------

TEST(DeviceCount, FollowsTheOptionThenTheEnvironmentThenIsOne) {
  int n = 0;
  {
    cudalab::emu::ScopedOptions scoped(with_devices(3));
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EXPECT_EQ(n, 3);
  }
  const char* saved = std::getenv("CUDALAB_EMU_DEVICES");
  const std::string saved_value = saved ? saved : "";
  cudalab::emu::ScopedOptions scoped(with_devices(0));
  setenv("CUDALAB_EMU_DEVICES", "5", 1);
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 5);
  setenv("CUDALAB_EMU_DEVICES", "five", 1);
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1) << "an unreadable setting means one device";
  unsetenv("CUDALAB_EMU_DEVICES");
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1);
  if (saved) setenv("CUDALAB_EMU_DEVICES", saved_value.c_str(), 1);
}

TEST_F(DevicesTest, EachHostThreadHasItsOwnCurrentDevice) {
  EXPECT_EQ(current(), 0);
  ASSERT_EQ(cudaSetDevice(2), cudaSuccess);
  int seen_by_other = -1, after_set_by_other = -1;
  std::thread other([&] {
    seen_by_other = current();
    EXPECT_EQ(cudaSetDevice(3), cudaSuccess);
    after_set_by_other = current();
  });
  other.join();
  EXPECT_EQ(seen_by_other, 0) << "a new host thread starts on device 0";
  EXPECT_EQ(after_set_by_other, 3);
  EXPECT_EQ(current(), 2) << "another thread's cudaSetDevice must not move this one";
}

TEST_F(DevicesTest, BadOrdinalsAreInvalidDevicesAndChangeNothing) {
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(kDevices), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
  EXPECT_EQ(current(), 1);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  cudaDeviceProp prop{};
  EXPECT_EQ(cudaGetDeviceProperties(&prop, kDevices), cudaErrorInvalidDevice);
  int value = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, kDevices), cudaErrorInvalidDevice);
  std::vector<int> buses;
  for (int d = 0; d < kDevices; ++d) {
    ASSERT_EQ(cudaGetDeviceProperties(&prop, d), cudaSuccess) << d;
    EXPECT_EQ(prop.warpSize, 32);
    buses.push_back(prop.pciBusID);
    ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, d), cudaSuccess) << d;
    EXPECT_EQ(value, 32);
  }
  for (int d = 1; d < kDevices; ++d) EXPECT_NE(buses[d], buses[d - 1]);
  cudaGetLastError();
}

TEST_F(DevicesTest, AllocationsBelongToTheDeviceCurrentWhenTheyWereMade) {
  ASSERT_EQ(cudaSetDevice(2), cudaSuccess);
  float* on_two = allocate<float>(kCount);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  float* on_one = allocate<float>(kCount);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, on_two + 10), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(attributes.device, 2);
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, on_one), cudaSuccess);
  EXPECT_EQ(attributes.device, 1);
  int host = 0;
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, &host), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeUnregistered);
}

// As on two H200s (CUDA 13), not as the Programming Guide says: a launch into
// a stream of another device runs, on that device.
TEST_F(DevicesTest, AKernelLaunchedIntoAnotherDevicesStreamRunsThere) {
  int* value = allocate<int>(1);
  ASSERT_EQ(cudaMemset(value, 0, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudaStream_t of_one = stream();
  ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);  // value is device 0's
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaGetLastError();
  plain_devices::store(value, 5, of_one);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(of_one), cudaSuccess);
  EXPECT_EQ(read(value), 5);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaDeviceDisablePeerAccess(0), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  // A copy may go to another device's stream.
  const int seven = 7;
  EXPECT_EQ(cudaMemcpyAsync(value, &seven, sizeof seven, cudaMemcpyHostToDevice, of_one),
            cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(of_one), cudaSuccess);
  EXPECT_EQ(read(value), 7);
  // An event is recorded only on a stream of its own device.
  cudaEvent_t of_zero = event();
  EXPECT_EQ(cudaEventRecord(of_zero, of_one), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecord(of_zero, nullptr), cudaSuccess);
  cudaGetLastError();
}

// ---- ordering across devices ------------------------------------------------------------

TEST_F(DevicesTest, EachDeviceHasItsOwnLegacyDefaultStream) {
  float* a = allocate<float>(kCount);
  cudaStream_t blocking_zero = stream(cudaStreamDefault);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  float* b = allocate<float>(kCount);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  Recording rec;
  plain_streams::fill(a, kCount, 1.0f, blocking_zero);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  // Device 1's legacy stream does not wait for device 0's blocking stream.
  ASSERT_EQ(cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  // The fill, which the copy did not wait for, runs (and races) when device 0 is synchronised.
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto* race = first_report(rec, ReportKind::stream_race);
  ASSERT_NE(race, nullptr) << rec.reports_text();
  const std::string text = race->to_string();
  EXPECT_NE(text.find(" on device 0"), std::string::npos) << text;
  EXPECT_NE(text.find("the legacy default stream on device 1"), std::string::npos) << text;
  EXPECT_NE(text.find("from device 0 to device 1"), std::string::npos) << text;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(blocking_zero), cudaSuccess);
}

TEST_F(DevicesTest, AnEventOfOneDeviceOrdersAStreamOfAnother) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "42"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(with_devices(kDevices, schedule));
    for (bool wait : {false, true}) {
      SCOPED_TRACE(wait ? "with cudaStreamWaitEvent" : "without a wait");
      ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
      float* a = allocate<float>(kCount);
      cudaStream_t producer = stream();
      cudaEvent_t filled = event(cudaEventDisableTiming);
      ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
      float* b = allocate<float>(kCount);
      cudaStream_t consumer = stream();
      Recording rec;
      ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
      plain_streams::fill(a, kCount, 2.0f, producer);
      ASSERT_EQ(cudaEventRecord(filled, producer), cudaSuccess);
      ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
      if (wait) {
        ASSERT_EQ(cudaStreamWaitEvent(consumer, filled, 0), cudaSuccess);
      }
      ASSERT_EQ(cudaMemcpyPeerAsync(b, 1, a, 0, kBytes, consumer), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(consumer), cudaSuccess);
      if (!wait) {
        // The fill the copy did not wait for runs when device 0 is synchronised.
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      }
      if (wait) {
        EXPECT_TRUE(rec.clean()) << rec.reports_text();
        EXPECT_EQ(read(b + kCount - 1), 2.0f);
      } else {
        const auto* race = first_report(rec, ReportKind::stream_race);
        ASSERT_NE(race, nullptr) << rec.reports_text();
        EXPECT_NE(race->to_string().find("cudaMemcpyPeerAsync DtoD"), std::string::npos)
            << race->to_string();
      }
      ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(cudaStreamDestroy(producer), cudaSuccess);
      EXPECT_EQ(cudaEventDestroy(filled), cudaSuccess);
      EXPECT_EQ(cudaStreamDestroy(consumer), cudaSuccess);
    }
  }
}

TEST_F(DevicesTest, DeviceSynchronizeWaitsForTheCurrentDeviceOnly) {
  for (int synchronised : {1, 0}) {
    SCOPED_TRACE("cudaDeviceSynchronize on device " + std::to_string(synchronised));
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    float* a = allocate<float>(kCount);
    float* out = allocate<float>(1);
    cudaStream_t first = stream();
    cudaStream_t second = stream();
    Recording rec;
    plain_streams::fill(a, kCount, 1.0f, first);
    ASSERT_EQ(cudaSetDevice(synchronised), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    plain_streams::sum(a, kCount, out, second);
    ASSERT_EQ(cudaStreamSynchronize(second), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // runs the fill, if it has not run
    if (synchronised == 0) {
      EXPECT_TRUE(rec.clean()) << rec.reports_text();
      EXPECT_EQ(read(out), static_cast<float>(kCount));
    } else {
      EXPECT_NE(first_report(rec, ReportKind::stream_race), nullptr)
          << "synchronising device 1 must not order device 0's work\n"
          << rec.reports_text();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(first), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(second), cudaSuccess);
  }
}

TEST_F(DevicesTest, DeviceResetInvalidatesTheCurrentDevicesHandlesOnly) {
  cudaStream_t of_zero = stream();
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudaStream_t of_one = stream();
  ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(of_one), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamQuery(of_zero), cudaSuccess);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess) << "the reset disabled peer access";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(of_zero), cudaSuccess);
  cudaGetLastError();
}

// ---- peer access ---------------------------------------------------------------------------

TEST_F(DevicesTest, PeerAccessIsEnabledOncePerPairAndDirection) {
  int can = -1;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 1), cudaSuccess);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 2, 2), cudaSuccess);
  EXPECT_EQ(can, 0) << "a device is not its own peer";
  EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, kDevices), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported) << "itself";
  EXPECT_EQ(cudaDeviceEnablePeerAccess(kDevices, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(2, 1), cudaErrorInvalidValue) << "flags must be 0";
  EXPECT_EQ(cudaDeviceDisablePeerAccess(2), cudaErrorPeerAccessNotEnabled);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled)
      << "0 -> 1 was enabled, not 1 -> 0";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  EXPECT_STREQ(cudaGetErrorName(cudaErrorPeerAccessAlreadyEnabled),
               "cudaErrorPeerAccessAlreadyEnabled");
  EXPECT_STREQ(cudaGetErrorString(cudaErrorPeerAccessNotEnabled),
               "peer access has not been enabled");
  cudaGetLastError();
}

TEST_F(DevicesTest, AKernelTouchingAnotherDevicesMemoryNeedsPeerAccess) {
  int* on_zero = allocate<int>(1);
  ASSERT_EQ(cudaMemset(on_zero, 0, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  {
    Recording rec;
    plain_devices::store(on_zero, 5, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    const auto* report = first_report(rec, ReportKind::peer_access);
    ASSERT_NE(report, nullptr) << rec.reports_text();
    const std::string text = report->to_string();
    EXPECT_NE(text.find("peer access from device 1 to device 0 is not enabled"), std::string::npos)
        << text;
    EXPECT_NE(text.find("store_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("on device 0"), std::string::npos) << text;
    EXPECT_NE(text.find("plain_devices.cpp"), std::string::npos) << text;
    EXPECT_EQ(report->allocation_base, reinterpret_cast<std::uintptr_t>(on_zero));
    EXPECT_TRUE(report->is_write);
    EXPECT_EQ(read(on_zero), 0) << "the store must not happen";
  }
  {
    ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    Recording rec;
    plain_devices::store(on_zero, 5, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    EXPECT_EQ(read(on_zero), 5);
  }
  {
    // Enabled from device 1 to device 0 only: device 0 may not touch device 1's memory.
    int* on_one = allocate<int>(1);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    Recording rec;
    plain_devices::store(on_one, 5, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT_TRUE(has_report(rec, ReportKind::peer_access)) << rec.reports_text();
  }
}

TEST_F(DevicesTest, PeerCopiesMoveDataBetweenDevices) {
  std::vector<float> host = random_floats(kCount), back(kCount);
  float* a = allocate<float>(kCount);
  ASSERT_EQ(cudaMemcpy(a, host.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(3), cudaSuccess);
  float* b = allocate<float>(kCount);
  float* c = allocate<float>(kCount);
  ASSERT_EQ(cudaMemcpyPeer(b, 3, a, 0, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), b, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  cudaStream_t s = stream();
  ASSERT_EQ(cudaMemsetAsync(c, 0, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyPeerAsync(c, 3, a, 0, kBytes / 2, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), c, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[kCount / 2 - 1], host[kCount / 2 - 1]);
  EXPECT_EQ(back[kCount / 2], 0.0f);
  // Unified addressing: a plain copy between devices needs no device numbers.
  ASSERT_EQ(cudaMemcpy(c, a, kBytes, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), c, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(cudaMemcpyPeer(b, kDevices, a, 0, kBytes), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMemcpyPeer(b, 3, host.data(), 0, kBytes), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  cudaGetLastError();
}

TEST_F(DevicesTest, APeerCopyCostsItsBytesAtNvlinkBandwidth) {
  constexpr std::size_t kBig = std::size_t{4} << 20;
  char* a = allocate<char>(kBig);
  char* same = allocate<char>(kBig);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  char* other = allocate<char>(kBig);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t s = stream();
  cudaEvent_t start = event(), middle = event(), end = event();
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(same, a, kBig, cudaMemcpyDeviceToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(middle, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyPeerAsync(other, 1, a, 0, kBig, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(end, s), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(end), cudaSuccess);
  float within = 0, between = 0;
  ASSERT_EQ(cudaEventElapsedTime(&within, start, middle), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&between, middle, end), cudaSuccess);
  // 1 us + 4 MiB at 1.5 TB/s; 1 us + 4 MiB at 400 GB/s.
  EXPECT_NEAR(within, (1.0 + kBig / 1.5e6) / 1000.0, 1e-4);
  EXPECT_NEAR(between, (1.0 + kBig / 400e3) / 1000.0, 1e-4);
  for (cudaEvent_t e : {start, middle, end}) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// ---- kernels of different host threads side by side ------------------------------------

// Enough polls for the other kernel to start on a loaded machine (seconds),
// few enough that a regression ends the test by itself.
constexpr long long kMaxPolls = 50'000'000;

enum class Where { legacy_at_once, created_streams, legacy_queued };

// Kernel A on device 0 waits for a flag in device 0's memory that kernel B,
// launched by another host thread on device 1 (with peer access), sets. B is
// launched only once A runs, so A must not keep B from running.
void wait_for_each_other(Where where) {
  cudalab::emu::Options o = with_devices(2);
  o.checks.races = false;  // A and B communicate through memory on purpose
  cudalab::emu::ScopedOptions scoped(o);
  int* started = nullptr;
  int* flag = nullptr;
  int* seen = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&started, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&flag, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&seen, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(started, 0, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(flag, 0, sizeof(int)), cudaSuccess);
  // A stream that exists makes default-stream work queue too.
  cudaStream_t unused = nullptr;
  if (where == Where::legacy_queued) {
    ASSERT_EQ(cudaStreamCreate(&unused), cudaSuccess);
  }
  auto a_started = [&] {
    return std::atomic_ref<int>(*started).load(std::memory_order_acquire) != 0;
  };
  std::thread rank0([&] {
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    cudaStream_t s = nullptr;
    if (where == Where::created_streams) {
      EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
    }
    plain_devices::wait_for_flag(started, flag, kMaxPolls, seen, s);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    if (s) {
      EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    }
  });
  std::thread rank1([&] {
    EXPECT_EQ(cudaSetDevice(1), cudaSuccess);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    cudaStream_t s = nullptr;
    if (where == Where::created_streams) {
      EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
    }
    // Device memory is host memory on the emulator: the host may watch A start.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!a_started() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    EXPECT_TRUE(a_started()) << "kernel A never started";
    plain_devices::store(flag, 1, s);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    if (s) {
      EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    }
    EXPECT_EQ(cudaDeviceDisablePeerAccess(0), cudaSuccess);
  });
  rank0.join();
  rank1.join();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int h = 0;
  ASSERT_EQ(cudaMemcpy(&h, seen, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 1) << "kernel A gave up: kernel B did not run while A waited";
  if (unused) {
    EXPECT_EQ(cudaStreamDestroy(unused), cudaSuccess);
  }
  for (int* p : {started, flag, seen}) EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST(DevicesSideBySide, KernelsOnTheLegacyDefaultStreamsRunAtOnceSideBySide) {
  wait_for_each_other(Where::legacy_at_once);
}

TEST(DevicesSideBySide, KernelsQueuedOnCreatedStreamsRunSideBySide) {
  wait_for_each_other(Where::created_streams);
}

TEST(DevicesSideBySide, KernelsQueuedOnTheLegacyDefaultStreamsRunSideBySide) {
  wait_for_each_other(Where::legacy_queued);
}

// ---- one device, as before -------------------------------------------------------------------

TEST(OneDevice, IsTheDefaultAndBehavesAsBefore) {
  cudalab::emu::ScopedOptions scoped(with_devices(1));
  int n = 0, can = -1;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  EXPECT_EQ(current(), 0);
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
  EXPECT_EQ(can, 0);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
  cudaGetLastError();
  // Stream names say no device.
  float* a = nullptr;
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  cudaStream_t side = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), cudaSuccess);
  Recording rec;
  plain_streams::fill(a, kCount, 1.0f, nullptr);
  plain_streams::sum(a, kCount, out, side);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto* race = first_report(rec, ReportKind::stream_race);
  ASSERT_NE(race, nullptr) << rec.reports_text();
  EXPECT_EQ(race->to_string().find(" on device"), std::string::npos) << race->to_string();
  EXPECT_EQ(cudaStreamDestroy(side), cudaSuccess);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

}  // namespace
}  // namespace emu_tests
