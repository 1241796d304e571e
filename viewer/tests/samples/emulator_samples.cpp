// Small plain-CUDA kernels (`float*`, `__shared__` arrays, `<<<>>>`) run on
// the emulator for the viewer's views that no lab fills yet. CMake compiles the
// copy tools/emu_rewrite.py makes of this file, instrumented, as a lab's.
#include "emulator_samples.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <utility>

#include "cudalab/device_buffer.hpp"
#include "cudalab/emu/recorder.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab::viewer {
namespace {

constexpr int kTile = 8;
constexpr int kSumThreads = 256;

// C (n,n) = A (n,n) B (n,n): block (x, y) computes tile (y, x) of C, walking
// tile k of A's tile row and B's tile column through shared memory. Thread 0
// stamps the block's start and end with clock64() for the timeline.
__global__ void tiled_matmul(const float* a, const float* b, float* c, int n, long long* stamps) {
  __shared__ float a_tile[kTile][kTile];  // (TILE,TILE)
  __shared__ float b_tile[kTile][kTile];  // (TILE,TILE)
  const int block = blockIdx.x + blockIdx.y * gridDim.x;
  const bool first = threadIdx.x == 0 && threadIdx.y == 0;
  if (first) stamps[2 * block] = clock64();
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    a_tile[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    b_tile[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += a_tile[threadIdx.y][k] * b_tile[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
  if (first) stamps[2 * block + 1] = clock64();
}

// out[0]: thread 0 adds all n numbers in order, in fp32.
__global__ void sum_in_order(const float* in, int n, float* out) {
  if (threadIdx.x != 0) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += in[i];
  out[0] = sum;
}

// out[0]: each of kSumThreads threads adds every kSumThreads-th number, then
// the partial sums are added pairwise in shared memory.
__global__ void sum_tree(const float* in, int n, float* out) {
  __shared__ float partial[kSumThreads];
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += kSumThreads) sum += in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = kSumThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = partial[0];
}

std::vector<float> uniform_numbers(std::size_t n, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = unit(engine);
  return v;
}

// The tile of `grid` (n x n floats at `base`) that `address` falls in, if any.
std::optional<TileTouch> tile_of(std::uint64_t address, const float* base, int n,
                                 std::uint32_t grid) {
  const auto begin = reinterpret_cast<std::uint64_t>(base);
  if (address < begin || address >= begin + sizeof(float) * n * n) return std::nullopt;
  const std::uint64_t element = (address - begin) / sizeof(float);
  return TileTouch{grid, static_cast<std::uint32_t>(element / n / kTile),
                   static_cast<std::uint32_t>(element % n / kTile)};
}

TileWalk tile_walk(const emu::LaunchRecord& launch, const float* a, const float* b, const float* c,
                   int n) {
  const auto tiles = static_cast<std::uint32_t>(n / kTile);
  TileWalk walk;
  walk.title = "tiled_matmul, n = " + std::to_string(n) + ", 8 x 8 tiles: block (x, y) reads " +
               "A tile (y, k) and B tile (k, x) at step k, then writes C tile (y, x)";
  walk.grids = {{"A", tiles, tiles}, {"B", tiles, tiles}, {"C", tiles, tiles}};
  std::vector<std::vector<TileTouch>> traces(launch.grid.x * launch.grid.y);
  for (const emu::AccessRecord& access : launch.accesses) {
    if (access.thread != 0 || access.is_shared()) continue;
    const float* grids[] = {a, b, c};
    for (std::uint32_t g = 0; g < 3; ++g)
      if (auto touch = tile_of(access.address, grids[g], n, g))
        traces[access.block].push_back(*touch);
  }
  for (std::size_t block = 0; block < traces.size(); ++block) {
    const dim3 id = launch.block_index(static_cast<std::uint32_t>(block));
    ProgramWalk program;
    program.name = "block (" + std::to_string(id.x) + "," + std::to_string(id.y) + ")";
    program.steps = steps_from_trace(traces[block]);
    walk.programs.push_back(std::move(program));
  }
  return walk;
}

Timeline block_timeline(const std::vector<long long>& stamps, const emu::LaunchRecord& launch) {
  const long long origin = *std::min_element(stamps.begin(), stamps.end());
  std::vector<Span> spans;
  for (std::size_t block = 0; block * 2 + 1 < stamps.size(); ++block) {
    const dim3 id = launch.block_index(static_cast<std::uint32_t>(block));
    // clock64() counts nanoseconds on the emulator (cycles on a GPU).
    spans.push_back({"block (" + std::to_string(id.x) + "," + std::to_string(id.y) + ")",
                     (stamps[2 * block] - origin) / 1e6, (stamps[2 * block + 1] - origin) / 1e6,
                     "block"});
  }
  Timeline timeline;
  timeline.title =
      "tiled_matmul on the emulator: each block from start to end (thread 0's "
      "clock64), in rows of blocks that ran at the same time";
  timeline.unit = "ms";
  timeline.rows = pack_rows(std::move(spans), "slot ");
  return timeline;
}

ErrorPlot summation_errors() {
  ErrorPlot plot;
  plot.title = "fp32 sums of n uniform numbers in [0, 1) on the emulator, against a double sum";
  plot.x_label = "n";
  plot.y_label = "relative error";
  plot.series = {{"fp32, one thread in order", {}}, {"fp32, 256 threads + tree", {}}};
  for (int n = 1 << 8; n <= 1 << 20; n *= 2) {
    const std::vector<float> host = uniform_numbers(static_cast<std::size_t>(n), 2026u);
    double exact = 0;
    for (float x : host) exact += x;
    DeviceBuffer<float> in(host), out(1);
    sum_in_order<<<1, 32>>>(in.data(), n, out.data());
    const float in_order = out.copy_to_host()[0];
    sum_tree<<<1, kSumThreads>>>(in.data(), n, out.data());
    const float tree = out.copy_to_host()[0];
    plot.series[0].points.push_back({double(n), std::fabs(in_order - exact) / exact});
    plot.series[1].points.push_back({double(n), std::fabs(tree - exact) / exact});
  }
  return plot;
}

class EmulatorSamples final : public LabSource {
 public:
  std::string title() const override { return "samples (emulator runs for the viewer's tests)"; }
  std::string code_origin() const override { return "viewer/tests/samples"; }
  std::vector<Version> versions() const override {
    return {{"tiled matmul and fp32 sums", "small kernels recorded on the emulator", false}};
  }
  std::vector<View> views() const override {
    return {View::kTimeline, View::kErrors, View::kTiles};
  }
  std::vector<Parameter> parameters() const override { return {{"n", "n (matmul)", 8, 256, 64}}; }
  bool has_launch_config() const override { return false; }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = validate(*this, request)) return RunOutcome::failure(*problem);
    const int n = static_cast<int>(request.values[0]);
    if (n % kTile != 0) return RunOutcome::failure("n must be a multiple of 8");
    emu::Options quiet = emu::options();
    quiet.print_reports = false;
    emu::ScopedOptions scoped(quiet);
    const auto start = std::chrono::steady_clock::now();

    RunOutcome out;
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    DeviceBuffer<float> a(uniform_numbers(elements, 1u)), b(uniform_numbers(elements, 2u));
    DeviceBuffer<float> c(elements);
    const dim3 grid(n / kTile, n / kTile);
    DeviceBuffer<long long> stamps(2 * std::size_t{grid.x} * grid.y);
    {
      emu::Recording recording;
      tiled_matmul<<<grid, dim3(kTile, kTile)>>>(a.data(), b.data(), c.data(), n, stamps.data());
      cudaDeviceSynchronize();
      if (!recording.clean()) out.error = recording.reports_text();
      out.tiles = tile_walk(recording.last(), a.data(), b.data(), c.data(), n);
      out.timeline = block_timeline(stamps.copy_to_host(), recording.last());
    }
    out.errors = summation_errors();
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_emulator_samples_source() {
  return std::make_unique<EmulatorSamples>();
}

}  // namespace cudalab::viewer
