// Half and bfloat16 device math on the emulator (half_math.hpp): rounding at
// ties, overflow, subnormals, NaN and -0, bit for bit; and the half atomics
// and shuffles inside kernels. tests/emu/half_math_gpu_test.cpp compares the
// same functions with the GPU's on random inputs.
#include <cstdint>
#include <limits>

#include "emu_test_support.hpp"

namespace emu_tests {
namespace {

__half h(std::uint16_t bits) { return __ushort_as_half(bits); }
__nv_bfloat16 b(std::uint16_t bits) { return __ushort_as_bfloat16(bits); }
std::uint16_t bits(__half x) { return __half_as_ushort(x); }
std::uint16_t bits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }

constexpr std::uint16_t kOne = 0x3c00, kMinusZero = 0x8000, kInf = 0x7c00, kMax = 0x7bff;
constexpr std::uint16_t kNan = 0x7fff, kSmallestSubnormal = 0x0001;
constexpr std::uint16_t kBfOne = 0x3f80, kBfNan = 0x7fff;

TEST(HalfMath, FmaRoundsTiesToEven) {
  const __half one = h(kOne);
  // 1 + 2^-11 lies halfway between 1 and the next half, 1 + 2^-10: even is 1.
  EXPECT_EQ(bits(__hfma(one, one, h(0x1000))), kOne);  // 0x1000 = 2^-11
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9.
  EXPECT_EQ(bits(__hfma(one, one, h(0x1600))), 0x3c02);  // 0x1600 = 3 * 2^-11
  // Just above the tie (the product carries the extra bit): rounds up.
  EXPECT_EQ(bits(__hfma(h(0x3c01), h(0x1000), one)), 0x3c01);
}

TEST(HalfMath, Bfloat16FmaRoundsOnceNotTwice) {
  // 7 * 37 = 259 lies halfway between the bfloat16 values 258 and 260; minus
  // 2^-100 it lies just below, so it rounds to 258. Rounding the sum to a
  // double first would land on the tie and give 260.
  const __nv_bfloat16 seven = b(0x40e0), thirty_seven = b(0x4214), tiny = b(0x8d80);  // -2^-100
  ASSERT_EQ(__bfloat162float(tiny), -std::ldexp(1.0f, -100));
  EXPECT_EQ(__bfloat162float(__hfma(seven, thirty_seven, tiny)), 258.0f);
  EXPECT_EQ(__bfloat162float(__hfma(seven, thirty_seven, b(0))), 260.0f);
}

TEST(HalfMath, OverflowGoesToInfinityAndSaturationClamps) {
  const __half one = h(kOne), sixteen = h(0x4c00), fifteen = h(0x4b80);
  EXPECT_EQ(bits(__hfma(h(kMax), one, sixteen)), kInf);  // 65520 is a tie: even is 2^16
  EXPECT_EQ(bits(__hfma(h(kMax), one, fifteen)), kMax);
  EXPECT_EQ(bits(__hfma(h(kMax | 0x8000), one, h(0xcc00))), kInf | 0x8000);
  EXPECT_EQ(bits(__hfma_sat(h(kMax), one, one)), kOne);
  EXPECT_EQ(bits(__hfma_sat(h(0xbc00), one, h(0))), 0);
  EXPECT_EQ(bits(hexp(h(0x4c00))), 0x7c00);   // e^16 > 65504
  EXPECT_EQ(bits(hexp2(h(0x4c00))), kInf);    // 2^16
  EXPECT_EQ(bits(hexp2(h(0x4b80))), 0x7800);  // 2^15
}

TEST(HalfMath, SubnormalsRoundToEven) {
  const __half smallest = h(kSmallestSubnormal), zero = h(0);
  EXPECT_EQ(bits(__hfma(smallest, h(0x3800), zero)), 0);       // 0.5 ulp: even is 0
  EXPECT_EQ(bits(__hfma(smallest, h(0x3e00), zero)), 0x0002);  // 1.5 ulp: even is 2
  EXPECT_EQ(bits(__hfma(smallest, h(0x3d00), zero)), 0x0001);  // 1.25 ulp
  EXPECT_EQ(bits(hsqrt(h(0x0004))), 0x1000);                   // sqrt(2^-22) = 2^-11
  EXPECT_EQ(bits(hrcp(h(0x7800))), 0x0200);                    // 1/2^15 is subnormal
}

TEST(HalfMath, NanPropagatesAndSaturatesToZero) {
  const __half nan = h(0x7e00), one = h(kOne);
  EXPECT_EQ(bits(__hfma(nan, one, one)), kNan);
  EXPECT_EQ(bits(__hfma(h(kInf), h(0), one)), kNan);  // inf * 0
  EXPECT_EQ(bits(__hfma_relu(nan, one, one)), kNan);
  EXPECT_EQ(bits(__hfma_sat(nan, one, one)), 0);
  EXPECT_EQ(bits(hsqrt(h(0xbc00))), kNan);
  EXPECT_EQ(bits(hlog(h(0xbc00))), kNan);
  EXPECT_EQ(bits(hexp(nan)), kNan);
  EXPECT_EQ(__half2int_rn(nan), 0);
  EXPECT_EQ(__half2ll_ru(nan), std::numeric_limits<long long>::min());
  EXPECT_EQ(bits(__hfma(b(0x7fc0), b(kBfOne), b(kBfOne))), kBfNan);
}

TEST(HalfMath, SignedZeros) {
  const __half minus_zero = h(kMinusZero), zero = h(0), one = h(kOne);
  EXPECT_EQ(bits(__hfma(minus_zero, one, minus_zero)), kMinusZero);
  EXPECT_EQ(bits(__hfma(minus_zero, one, zero)), 0);
  EXPECT_EQ(bits(__hfma_relu(h(0xbc00), one, zero)), 0);
  EXPECT_EQ(bits(hsqrt(minus_zero)), kMinusZero);
  EXPECT_EQ(bits(hrsqrt(minus_zero)), kInf | 0x8000);
  EXPECT_EQ(bits(hrcp(minus_zero)), kInf | 0x8000);
  EXPECT_EQ(bits(hlog(zero)), kInf | 0x8000);
  EXPECT_EQ(bits(hceil(h(0xb800))), kMinusZero);   // ceil(-0.5)
  EXPECT_EQ(bits(htrunc(h(0xb800))), kMinusZero);  // trunc(-0.5)
  EXPECT_EQ(bits(hrint(h(0xb800))), kMinusZero);   // rint(-0.5)
  EXPECT_EQ(bits(hfloor(h(0xb800))), 0xbc00);      // floor(-0.5) = -1
  EXPECT_EQ(bits(hrint(h(0x4100))), 0x4000);       // rint(2.5) = 2
}

TEST(HalfMath, MathFunctionsAreCorrectlyRoundedAtExactPoints) {
  EXPECT_EQ(bits(hexp(h(0))), kOne);
  EXPECT_EQ(bits(hlog2(h(0x6400))), 0x4900);   // log2(1024) = 10
  EXPECT_EQ(bits(hlog10(h(0x5640))), 0x4000);  // log10(100) = 2
  EXPECT_EQ(bits(hexp10(h(0x4000))), 0x5640);  // 10^2
  // sin(1) = 0.8414709848...; the nearest halves are 0.84130859375 (0x3abb)
  // and 0.841796875 (0x3abc): 0x3abb is 0.00016 away, 0x3abc 0.00033.
  EXPECT_EQ(bits(hsin(h(kOne))), 0x3abb);
}

TEST(HalfMath, IntegerConversionsRoundAndSaturate) {
  EXPECT_EQ(__half2int_rn(h(0x4100)), 2);  // 2.5
  EXPECT_EQ(__half2int_rn(h(0x4300)), 4);  // 3.5
  EXPECT_EQ(__half2int_rd(h(0xb800)), -1);
  EXPECT_EQ(__half2int_ru(h(0xb800)), 0);
  EXPECT_EQ(__half2int_ru(h(kInf)), std::numeric_limits<int>::max());
  EXPECT_EQ(__half2short_rn(h(kMax)), 32767);
  EXPECT_EQ(__half2uint_rn(h(0xbc00)), 0u);
  EXPECT_EQ(__half2ull_rd(h(kMax)), 65504ull);
  EXPECT_EQ(__bfloat162int_rn(b(0x4f80)), std::numeric_limits<int>::max());  // 2^32
  EXPECT_EQ(__bfloat162ll_ru(b(0x3f81)), 2);                                 // 1 + 2^-7
  // 257 needs 9 bits: bfloat16 holds 256 and 258 around it.
  EXPECT_EQ(__bfloat162float(__int2bfloat16_rz(257)), 256.0f);
  EXPECT_EQ(__bfloat162float(__int2bfloat16_ru(257)), 258.0f);
  EXPECT_EQ(__bfloat162float(__int2bfloat16_rd(-257)), -258.0f);
  EXPECT_EQ(__bfloat162float(__ull2bfloat16_ru(~0ull)), 0x1p64f);
  EXPECT_EQ(__bfloat162float(__ull2bfloat16_rz(~0ull)), 0x1.fep63f);
  EXPECT_EQ(__bfloat162float(__ll2bfloat16_rd(std::numeric_limits<long long>::min() + 1)),
            -0x1p63f);
}

TEST(HalfMath, PairFormsWorkOnBothHalves) {
  const __half2 a(h(0x4000), h(0x4400)), one(h(kOne), h(kOne));  // (2, 4)
  const __half2 s = h2sqrt(a);
  EXPECT_EQ(bits(s.y), 0x4000);
  EXPECT_EQ(bits(s.x), bits(hsqrt(h(0x4000))));
  const __half2 f = __hfma2(a, a, one);  // (5, 17)
  EXPECT_EQ(__half2float(f.x), 5.0f);
  EXPECT_EQ(__half2float(f.y), 17.0f);
  // (1 + 2i)(3 + 4i) + (1 + 1i) = -4 + 11i
  const __nv_bfloat162 z = __hcmadd(__floats2bfloat162_rn(1, 2), __floats2bfloat162_rn(3, 4),
                                    __floats2bfloat162_rn(1, 1));
  EXPECT_EQ(__bfloat162float(z.x), -4.0f);
  EXPECT_EQ(__bfloat162float(z.y), 11.0f);
}

// Every thread adds 1 to the same counters: the half sum is exact up to 2048.
__global__ void add_ones(__half* half_sum, __half2* pair_sum, __nv_bfloat16* bf16_sum) {
  atomicAdd(half_sum, __float2half(1.0f));
  atomicAdd(pair_sum, __floats2half2_rn(1.0f, 2.0f));
  atomicAdd(bf16_sum, __float2bfloat16(1.0f));
}

TEST(HalfMath, AtomicAddOnHalfTypesFromManyBlocks) {
  DeviceBuffer<__half> half_sum(std::vector<__half>{__float2half(0.0f)});
  // __half2 is not trivially copyable (it declares its copy operations), so
  // DeviceBuffer holds its 4 bytes as an unsigned.
  DeviceBuffer<unsigned> pair_sum(std::vector<unsigned>{0u});
  DeviceBuffer<__nv_bfloat16> bf16_sum(std::vector<__nv_bfloat16>{__float2bfloat16(0.0f)});
  add_ones<<<dim3(8), dim3(128)>>>(half_sum.data(), reinterpret_cast<__half2*>(pair_sum.data()),
                                   bf16_sum.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(__half2float(half_sum.copy_to_host()[0]), 1024.0f);
  const unsigned pair_bits = pair_sum.copy_to_host()[0];
  const __half2 pair(h(pair_bits & 0xffff), h(pair_bits >> 16));
  EXPECT_EQ(__half2float(pair.x), 1024.0f);
  EXPECT_EQ(__half2float(pair.y), 2048.0f);
  EXPECT_EQ(__bfloat162float(bf16_sum.copy_to_host()[0]), 256.0f);  // 256 + 1 rounds back to 256
}

// Lane i receives lane i ^ 1's value, as __half and as __half2.
__global__ void swap_neighbours(const __half* in, __half* out, __half2* pairs) {
  const unsigned i = threadIdx.x;
  const __half mine = in[i];
  out[i] = __shfl_xor_sync(0xffffffffu, mine, 1);
  pairs[i] = __shfl_xor_sync(0xffffffffu, __halves2half2(mine, mine), 1);
}

TEST(HalfMath, WarpShufflesMoveHalfValues) {
  std::vector<__half> x(32);
  for (int i = 0; i < 32; ++i) x[i] = __int2half_rn(i);
  DeviceBuffer<__half> in(x), out(32);
  DeviceBuffer<unsigned> pairs(32);
  swap_neighbours<<<dim3(1), dim3(32)>>>(in.data(), out.data(),
                                         reinterpret_cast<__half2*>(pairs.data()));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<__half> got = out.copy_to_host();
  std::vector<unsigned> got_pairs = pairs.copy_to_host();
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(__half2float(got[i]), static_cast<float>(i ^ 1)) << i;
    EXPECT_EQ(__half2float(h(got_pairs[i] >> 16)), static_cast<float>(i ^ 1)) << i;
  }
}

}  // namespace
}  // namespace emu_tests
