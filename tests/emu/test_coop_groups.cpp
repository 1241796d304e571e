// Cooperative groups on both backends (coop_groups.hpp): every kernel runs on
// the emulator (Emu/...) and on the GPU (Gpu/..., skipped without one) and
// must give what CPU references give that follow CUDA 13.0's header step by
// step: the butterfly of cg::reduce, the Hillis-Steele rounds of the scans,
// the tile's rank and mask arithmetic. Floats are compared bit for bit (so a
// NaN never passes); inputs are fresh random values (CUDALAB_SEED repeats a
// run), sizes are 1, primes and non-multiples of the block.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "both_backends.hpp"
#include "coop_groups.hpp"
#include "cudalab/random.hpp"

namespace coop_groups {
namespace {

class CoopGroups : public ::emu_tests::OnBothBackends<Kernels, &emulator_kernels, &gpu_kernels,
                                                      &gpu_unavailable_reason> {};

EMU_TESTS_ON_BOTH_BACKENDS(CoopGroups);

// Bit for bit, so that NaN != NaN and -0.0 != +0.0 count.
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// ---- references ------------------------------------------------------------------

// cg::reduce over a tile of 32: out = op(out, shfl_xor(out, m)), m = 16..1.
template <class T>
T butterfly32(std::vector<T> lanes) {
  for (unsigned m = 16; m > 0; m >>= 1) {
    std::vector<T> next(32);
    for (unsigned l = 0; l < 32; ++l) next[l] = lanes[l] + lanes[l ^ m];
    lanes = next;
  }
  return lanes[0];
}

template <class T>
std::vector<T> block_sums(const std::vector<T>& in, unsigned block) {
  std::vector<T> sums;
  for (std::size_t base = 0; base < in.size(); base += block) {
    T total{};
    for (unsigned w = 0; w < block / 32; ++w) {
      std::vector<T> lanes(32, T(0));
      for (unsigned l = 0; l < 32; ++l) {
        const std::size_t i = base + w * 32 + l;
        if (i < in.size()) lanes[l] = in[i];
      }
      const T warp = butterfly32(lanes);
      total = w == 0 ? warp : T(total + warp);
    }
    sums.push_back(total);
  }
  return sums;
}

// Hillis-Steele over each tile of `size`: round d, out = op(out, out[r - d]) where d <= r.
template <class T, class Op>
std::vector<T> inclusive_scans(const std::vector<T>& in, unsigned size, Op op) {
  std::vector<T> out = in;
  for (std::size_t base = 0; base < in.size(); base += size) {
    for (unsigned d = 1; d < size; d <<= 1) {
      std::vector<T> before(out.begin() + base, out.begin() + base + size);
      for (unsigned r = d; r < size; ++r) out[base + r] = op(before[r], before[r - d]);
    }
  }
  return out;
}
// The inclusive result one rank up; rank 0 gets T{} (CUDA's rule for any
// operator but integer plus, whose result - value is the same numbers).
template <class T>
std::vector<T> shifted_up(const std::vector<T>& inclusive, unsigned size) {
  std::vector<T> out(inclusive.size());
  for (std::size_t i = 0; i < inclusive.size(); ++i)
    out[i] = i % size == 0 ? T{} : inclusive[i - 1];
  return out;
}

std::vector<int> random_ints(cudalab::Random& rng, std::size_t n, int lo, int hi) {
  return rng.uniform<int>(n, lo, hi);
}

// ---- thread_block + tiled_partition<32> + cg::reduce ------------------------------

TEST_P(CoopGroups, BlockSumOfWarpReducesMatchesTheButterflyBitForBit) {
  SCOPED_TRACE(rng_.seed_note());
  for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{4099}}) {
    for (unsigned block : {64u, 96u, 256u}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", block = " + std::to_string(block));
      const std::vector<int> ints = random_ints(rng_, n, -1000000, 1000000);
      EXPECT_EQ(k().block_sum_int(ints, block), block_sums(ints, block));
      const std::vector<unsigned> uns = rng_.uniform<unsigned>(n, 0u, 0xffffffffu);
      EXPECT_EQ(k().block_sum_unsigned(uns, block), block_sums(uns, block));  // wraps as on the GPU

      const std::vector<float> floats = rng_.signed_uniform<float>(n, 1e-3f, 1e3f);
      const std::vector<float> f_got = k().block_sum_float(floats, block);
      const std::vector<float> f_want = block_sums(floats, block);
      ASSERT_EQ(f_got.size(), f_want.size());
      for (std::size_t b = 0; b < f_got.size(); ++b) {
        EXPECT_FALSE(std::isnan(f_got[b])) << "block " << b;
        EXPECT_TRUE(same_bits(f_got[b], f_want[b]))
            << "block " << b << ": " << f_got[b] << " vs " << f_want[b];
      }
      const std::vector<double> doubles = rng_.signed_uniform<double>(n, 1e-6, 1e6);
      const std::vector<double> d_got = k().block_sum_double(doubles, block);
      const std::vector<double> d_want = block_sums(doubles, block);
      ASSERT_EQ(d_got.size(), d_want.size());
      for (std::size_t b = 0; b < d_got.size(); ++b) {
        EXPECT_TRUE(same_bits(d_got[b], d_want[b]))
            << "block " << b << ": " << d_got[b] << " vs " << d_want[b];
      }
    }
  }
}

// ---- tiles of several warps ----------------------------------------------------------

// What multi_warp_tile_kernel<size> writes, computed on the CPU.
std::vector<int> multi_warp_expected(const std::vector<int>& in, unsigned block, unsigned size) {
  const std::size_t blocks = (in.size() + block - 1) / block;
  std::vector<int> out;
  for (std::size_t t = 0; t < blocks * block / size; ++t) {
    int sum = 0, any_negative = 0, all_small = 1;
    auto at = [&](std::size_t i) { return i < in.size() ? in[i] : 0; };
    for (std::size_t i = t * size; i < (t + 1) * size; ++i) {
      sum += at(i);
      any_negative |= at(i) < 0;
      all_small &= at(i) < 1000;
    }
    const int tiles_per_block = static_cast<int>(block / size);
    out.insert(out.end(), {sum, at((t + 1) * size - 1), any_negative, all_small,
                           static_cast<int>(t) % tiles_per_block, tiles_per_block});
  }
  return out;
}

TEST_P(CoopGroups, MultiWarpTilesReduceShuffleAndVoteOverTheirWarps) {
  SCOPED_TRACE(rng_.seed_note());
  for (std::size_t n : {std::size_t{1}, std::size_t{97}, std::size_t{1000}, std::size_t{4099}}) {
    for (unsigned block : {128u, 256u, 384u}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", block = " + std::to_string(block));
      // Mostly in [0, 1000): some tiles have a negative or a large value, most not.
      std::vector<int> in = random_ints(rng_, n, 0, 999);
      for (std::size_t i = 0; i < n; i += 150) in[i] = (i / 150) % 2 ? -5 : 5000;
      EXPECT_EQ(k().multi_warp_64(in, block), multi_warp_expected(in, block, 64));
      if (block % 128 == 0) {
        EXPECT_EQ(k().multi_warp_128(in, block), multi_warp_expected(in, block, 128));
      }
    }
  }
}

// ---- tiles of 4, 8, 16 ----------------------------------------------------------------

template <unsigned N>
std::vector<TileOps> tile_reference(const std::vector<int>& in, unsigned block) {
  std::vector<TileOps> want(in.size());
  std::vector<int> incl = inclusive_scans(in, N, std::plus<int>());
  std::vector<int> incl_min = inclusive_scans(in, N, [](int a, int b) { return (b < a) ? b : a; });
  for (std::size_t i = 0; i < in.size(); ++i) {
    const unsigned t = static_cast<unsigned>(i % block);  // rank in the block
    const unsigned r = t % N;
    const std::size_t base = i - r;  // the tile's rank 0
    auto v = [&](unsigned rank) { return in[base + rank]; };
    TileOps& o = want[i];
    o.rank = static_cast<int>(r);
    o.meta_rank = static_cast<int>(t / N);
    o.meta_size = static_cast<int>((block + N - 1) / N);
    o.shfl_down = r + 1 < N ? v(r + 1) : v(r);
    o.shfl_up = r >= 2 ? v(r - 2) : v(r);
    o.shfl_xor = v(r ^ (N / 2));
    o.shfl_last = v(N - 1);
    o.ballot = o.match_any = 0;
    bool all_same = true, any5 = false, all_even = true;
    int max = v(0);
    for (unsigned q = 0; q < N; ++q) {
      if (v(q) & 1) o.ballot |= 1u << q;
      if (v(q) % 3 == v(r) % 3) o.match_any |= 1u << q;
      all_same = all_same && v(q) / 1000 == v(0) / 1000;
      any5 = any5 || v(q) % 5 == 0;
      all_even = all_even && v(q) % 2 == 0;
      max = v(q) > max ? v(q) : max;
    }
    o.match_all = all_same ? (N == 32 ? ~0u : (1u << N) - 1u) : 0u;
    o.match_all_pred = all_same;
    o.any = any5;
    o.all = all_even;
    o.max = max;
    o.inclusive = incl[i];
    o.exclusive = incl[i] - in[i];
    o.exclusive_min = r == 0 ? 0 : incl_min[i - 1];
  }
  return want;
}

void expect_tile_ops(const std::vector<TileOps>& got, const std::vector<TileOps>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const TileOps& g = got[i];
    const TileOps& w = want[i];
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_EQ(g.rank, w.rank);
    EXPECT_EQ(g.meta_rank, w.meta_rank);
    EXPECT_EQ(g.meta_size, w.meta_size);
    EXPECT_EQ(g.shfl_down, w.shfl_down);
    EXPECT_EQ(g.shfl_up, w.shfl_up);
    EXPECT_EQ(g.shfl_xor, w.shfl_xor);
    EXPECT_EQ(g.shfl_last, w.shfl_last);
    EXPECT_EQ(g.ballot, w.ballot);
    EXPECT_EQ(g.match_any, w.match_any);
    EXPECT_EQ(g.match_all, w.match_all);
    EXPECT_EQ(g.match_all_pred, w.match_all_pred);
    EXPECT_EQ(g.any, w.any);
    EXPECT_EQ(g.all, w.all);
    EXPECT_EQ(g.max, w.max);
    EXPECT_EQ(g.inclusive, w.inclusive);
    EXPECT_EQ(g.exclusive, w.exclusive);
    EXPECT_EQ(g.exclusive_min, w.exclusive_min);
    if (::testing::Test::HasFailure()) return;  // one thread's story is enough
  }
}

// Every third tile's values share their thousands, so match_all finds some
// tiles all equal; the others are random in [0, 2999].
std::vector<int> tile_input(cudalab::Random& rng, std::size_t n, unsigned tile) {
  std::vector<int> in = rng.uniform<int>(n, 0, 2999);
  for (std::size_t i = 0; i < n; ++i) {
    if (i / tile % 3 == 0) in[i] = 1000 + in[i] % 1000;
  }
  return in;
}

TEST_P(CoopGroups, TilesOf4ShuffleVoteMatchAndScanWithinTheirLanes) {
  SCOPED_TRACE(rng_.seed_note());
  for (unsigned block : {36u, 64u}) {  // 36: a last warp of one tile
    const std::vector<int> in = tile_input(rng_, block * 5, 4);
    expect_tile_ops(k().tile_ops_4(in, block), tile_reference<4>(in, block));
  }
}
TEST_P(CoopGroups, TilesOf8ShuffleVoteMatchAndScanWithinTheirLanes) {
  SCOPED_TRACE(rng_.seed_note());
  for (unsigned block : {40u, 96u}) {
    const std::vector<int> in = tile_input(rng_, block * 3, 8);
    expect_tile_ops(k().tile_ops_8(in, block), tile_reference<8>(in, block));
  }
}
TEST_P(CoopGroups, TilesOf16ShuffleVoteMatchAndScanWithinTheirLanes) {
  SCOPED_TRACE(rng_.seed_note());
  for (unsigned block : {48u, 128u}) {
    const std::vector<int> in = tile_input(rng_, block * 3, 16);
    expect_tile_ops(k().tile_ops_16(in, block), tile_reference<16>(in, block));
  }
}

// ---- scans ----------------------------------------------------------------------------

template <class T, class Op>
std::vector<T> scan_reference(const std::vector<T>& in, Op op) {
  const std::vector<T> i32 = inclusive_scans(in, 32, op), i8 = inclusive_scans(in, 8, op);
  const std::vector<T> e32 = shifted_up(i32, 32), e8 = shifted_up(i8, 8);
  std::vector<T> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out.insert(out.end(), {i32[i], e32[i], i8[i], e8[i]});
  }
  return out;
}

template <class T>
void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(same_bits(got[i], want[i]))
        << "element " << i / 4 << ", scan " << i % 4 << ": " << got[i] << " vs " << want[i];
  }
}

TEST_P(CoopGroups, InclusiveAndExclusiveScansFollowCudasRoundsBitForBit) {
  SCOPED_TRACE(rng_.seed_note());
  const std::vector<float> f = rng_.signed_uniform<float>(96 * 3, 1e-3f, 1e3f);
  expect_same_bits(k().scan_float(f, 96), scan_reference(f, std::plus<float>()));
  const std::vector<double> d = rng_.signed_uniform<double>(64 * 2, 1e-6, 1e6);
  expect_same_bits(k().scan_double(d, 64), scan_reference(d, std::plus<double>()));
  const std::vector<unsigned> u = rng_.uniform<unsigned>(64 * 3, 0u, 0xffffffffu);
  expect_same_bits(k().scan_unsigned_xor(u, 64), scan_reference(u, std::bit_xor<unsigned>()));
}

// ---- coalesced_threads() in a divergent branch -----------------------------------------

std::vector<CoalescedOps> coalesced_reference(const std::vector<int>& in) {
  std::vector<CoalescedOps> want(in.size(), CoalescedOps{-1, -1, -1, -1, -1, -1, -1, 0u, -1, -1});
  for (std::size_t base = 0; base < in.size(); base += 32) {
    std::vector<std::size_t> members;
    for (std::size_t l = 0; l < 32; ++l) {
      if (in[base + l] % 3 == 0) members.push_back(base + l);
    }
    int sum = 0, incl = 0, any = 0, all = 1;
    unsigned ballot = 0;
    for (std::size_t r = 0; r < members.size(); ++r) {
      const int v = in[members[r]];
      sum += v;
      if (v & 1) ballot |= 1u << r;
      any = any || v > 500;
      all = all && v < 900;
    }
    for (std::size_t r = 0; r < members.size(); ++r) {
      CoalescedOps& o = want[members[r]];
      const int v = in[members[r]];
      incl += v;
      o = CoalescedOps{static_cast<int>(r),
                       static_cast<int>(members.size()),
                       sum,
                       incl,
                       incl - v,
                       in[members[0]],
                       r + 1 < members.size() ? in[members[r + 1]] : v,
                       ballot,
                       any,
                       all};
    }
  }
  return want;
}

TEST_P(CoopGroups, CoalescedThreadsInABranchAreTheLanesThatTookIt) {
  SCOPED_TRACE(rng_.seed_note());
  constexpr unsigned kBlock = 64;
  std::vector<int> in = rng_.uniform<int>(kBlock * 4, 0, 999);
  for (unsigned l = 0; l < 32; ++l) in[l] = 3 * (in[l] / 3);       // warp 0: every lane (size 32)
  for (unsigned l = 32; l < 64; ++l) in[l] = 3 * (in[l] / 3) + 1;  // warp 1: one lane only
  in[32 + 17] = 3 * 111;
  const std::vector<CoalescedOps> got = k().coalesced(in, kBlock);
  const std::vector<CoalescedOps> want = coalesced_reference(in);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const CoalescedOps& g = got[i];
    const CoalescedOps& w = want[i];
    SCOPED_TRACE("thread " + std::to_string(i) + ", value " + std::to_string(in[i]));
    EXPECT_EQ(g.rank, w.rank);
    EXPECT_EQ(g.size, w.size);
    EXPECT_EQ(g.sum, w.sum);
    EXPECT_EQ(g.inclusive, w.inclusive);
    EXPECT_EQ(g.exclusive, w.exclusive);
    EXPECT_EQ(g.first, w.first);
    EXPECT_EQ(g.next, w.next);
    EXPECT_EQ(g.ballot, w.ballot);
    EXPECT_EQ(g.any, w.any);
    EXPECT_EQ(g.all, w.all);
    if (HasFailure()) return;
  }
}

// ---- grid groups ------------------------------------------------------------------------

std::vector<unsigned> grid_rounds_reference(std::vector<unsigned> a, int rounds) {
  const std::size_t n = a.size();
  for (int r = 0; r < rounds; ++r) {
    std::vector<unsigned> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i] * 3u + a[(i + 1) % n] + a[n - 1 - i];
    a = b;
  }
  return a;
}

TEST_P(CoopGroups, GridSyncOrdersEveryBlocksWritesBeforeTheNextRound) {
  SCOPED_TRACE(rng_.seed_note());
  struct Shape {
    std::size_t n;
    unsigned blocks, block;
    int rounds;
  };
  for (const Shape& s : {Shape{1, 1, 32, 3}, Shape{1009, 7, 64, 3}, Shape{4099, 11, 96, 4},
                         Shape{97, 13, 32, 2}}) {  // the last: more threads than elements
    SCOPED_TRACE("n = " + std::to_string(s.n) + ", " + std::to_string(s.blocks) + " x " +
                 std::to_string(s.block) + ", " + std::to_string(s.rounds) + " rounds");
    const std::vector<unsigned> in = rng_.uniform<unsigned>(s.n, 0u, 0xffffffffu);
    cudaError_t launch = cudaErrorUnknown;
    const std::vector<unsigned> got = k().grid_rounds(in, s.blocks, s.block, s.rounds, &launch);
    ASSERT_EQ(launch, cudaSuccess);
    EXPECT_EQ(got, grid_rounds_reference(in, s.rounds));
  }
}

TEST_P(CoopGroups, ACooperativeGridAboveTheResidentLimitIsRefused) {
  cudaError_t at_limit = cudaErrorUnknown, above = cudaErrorUnknown;
  unsigned limit = 0;
  k().grid_limit(&at_limit, &above, &limit);
  // 32 threads and 100 KiB of dynamic shared memory: shared memory allows 2
  // blocks per multiprocessor (228 KiB, 1 KiB reserved per block).
  if (!gpu()) {
    EXPECT_EQ(limit, 2u * 132u);
  }
  EXPECT_GT(limit, 0u);
  EXPECT_EQ(at_limit, cudaSuccess) << cudaGetErrorName(at_limit);
  EXPECT_EQ(above, cudaErrorCooperativeLaunchTooLarge) << cudaGetErrorName(above);
}

// ---- the Programming Guide's examples -------------------------------------------------

int guide_reference(const std::vector<int>& in) {
  int sum = 0;
  for (std::size_t i = 0; i < in.size() / 4 * 4; ++i) sum += in[i];
  return sum;
}

TEST_P(CoopGroups, TheGuidesThreadGroupReductionsSumTheInput) {
  SCOPED_TRACE(rng_.seed_note());
  for (std::size_t quads : {std::size_t{1}, std::size_t{1013}, std::size_t{4099}}) {
    const std::vector<int> in = random_ints(rng_, 4 * quads, -1000, 1000);
    for (unsigned block : {32u, 128u, 256u}) {
      SCOPED_TRACE(std::to_string(4 * quads) + " elements, block " + std::to_string(block));
      EXPECT_EQ(k().guide_block_sum(in, block), guide_reference(in));
      EXPECT_EQ(k().guide_tile4_sum(in, block), guide_reference(in));
      EXPECT_EQ(k().guide_tile32_sum(in, block), guide_reference(in));
    }
  }
}

TEST_P(CoopGroups, TheGuidesGridSyncLaunchFillsTheDeviceAndSyncs) {
  SCOPED_TRACE(rng_.seed_note());
  const std::vector<int> in = random_ints(rng_, 5003, -100000, 100000);
  unsigned blocks = 0;
  const std::vector<int> got = k().guide_grid_sync(in, &blocks);
  EXPECT_GT(blocks, 0u);
  ASSERT_EQ(got.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(got[i], 2 * in[(i + 7) % in.size()] + 2 * in[i]) << "element " << i;
  }
}

// ---- the emulator's reports ----------------------------------------------------------------

TEST(CoopGroupsEmu, DivergentBlockSyncIsReportedAsADivergentSyncthreads) {
  const DivergentReports r = emulator_reports();
  EXPECT_EQ(r.block_sync_kind, "divergent_barrier");
  EXPECT_EQ(r.block_sync_kind, r.syncthreads_kind);
  EXPECT_EQ(r.block_sync_error, cudaErrorLaunchFailure);
  EXPECT_EQ(r.syncthreads_error, cudaErrorLaunchFailure);
  // The same sentence, but for the line of the call.
  EXPECT_NE(r.block_sync_message.find("16 thread(s) (0,0,0), (1,0,0), (2,0,0), (3,0,0) and 12 more "
                                      "wait at __syncthreads()"),
            std::string::npos)
      << r.block_sync_message;
  EXPECT_NE(r.block_sync_message.find("48 thread(s) (16,0,0)"), std::string::npos)
      << r.block_sync_message;
  EXPECT_NE(r.block_sync_site.find("coop_groups_emu.cpp:"), std::string::npos) << r.block_sync_site;
  EXPECT_NE(r.syncthreads_message.find("wait at __syncthreads()"), std::string::npos);

  EXPECT_EQ(r.grid_sync_kind, "grid_sync");
  EXPECT_NE(r.grid_sync_message.find("not launched with cudaLaunchCooperativeKernel"),
            std::string::npos)
      << r.grid_sync_message;
  EXPECT_TRUE(r.grid_run_clean) << r.grid_run_reports;

  // A block that returns before grid.sync(): reported instead of a hang.
  EXPECT_EQ(r.grid_early_exit_kind, "divergent_barrier");
  EXPECT_EQ(r.grid_early_exit_error, cudaErrorLaunchFailure);
  EXPECT_NE(r.grid_early_exit_message.find("block (1,0,0) ended without reaching it"),
            std::string::npos)
      << r.grid_early_exit_message;
}

// Last: on the GPU, grid.sync() outside a cooperative launch traps, and the
// context is unusable afterwards (ctest runs each test in its own process).
TEST_P(CoopGroups, ZZGridSyncOutsideACooperativeLaunchFails) {
  int valid = -1;
  cudaError_t sync = cudaSuccess;
  k().grid_sync_not_cooperative(&valid, &sync);
  EXPECT_EQ(valid, 0);
  EXPECT_EQ(sync, cudaErrorLaunchFailure) << cudaGetErrorName(sync);
}

}  // namespace
}  // namespace coop_groups
