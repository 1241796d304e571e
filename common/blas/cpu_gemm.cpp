// The CPU stand-in for cuBLAS's GEMM (cpu_gemm.hpp says what each mode does).
#include "cudalab/blas/cpu_gemm.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cudalab/numerics.hpp"

namespace cudalab::blas {

namespace {

using numerics::MmaFormat;

// Reads element (row, column) of a column-major matrix of `type`, as a
// value (fp32) or, for the tensor-core model, as the bit pattern it expects.
class MatrixView {
 public:
  MatrixView(const void* data, int ld, ElementType type, bool transposed)
      : data_(static_cast<const unsigned char*>(data)),
        ld_(ld),
        type_(type),
        transposed_(transposed) {}

  // (row, column) of op(X): a transposed operand swaps them in storage.
  std::uint32_t bits(int row, int column) const {
    const std::size_t index =
        transposed_ ? static_cast<std::size_t>(column) + static_cast<std::size_t>(row) * ld_
                    : static_cast<std::size_t>(row) + static_cast<std::size_t>(column) * ld_;
    if (type_ == ElementType::fp32) {
      std::uint32_t value;
      std::memcpy(&value, data_ + index * 4, 4);
      return value;
    }
    std::uint16_t value;
    std::memcpy(&value, data_ + index * 2, 2);
    return value;
  }

  float value(int row, int column) const { return to_float(bits(row, column), type_); }

  static float to_float(std::uint32_t bits, ElementType type) {
    switch (type) {
      case ElementType::fp32:
        return numerics::float_from_bits(bits);
      case ElementType::fp16:
        return numerics::fp16_bits_to_fp32(static_cast<std::uint16_t>(bits));
      case ElementType::bf16:
        return numerics::bf16_bits_to_fp32(static_cast<std::uint16_t>(bits));
    }
    return 0.0f;
  }

 private:
  const unsigned char* data_;
  std::size_t ld_;
  ElementType type_;
  bool transposed_;
};

float round_to_fp16(float value) {
  return numerics::fp16_bits_to_fp32(numerics::fp32_to_fp16_bits(value));
}

// fp32: one fma per term, in order of k (what CUBLAS_PEDANTIC_MATH promises
// up to the order).
float fp32_dot(const MatrixView& a, const MatrixView& b, int i, int j, int k) {
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum = std::fma(a.value(i, p), b.value(p, j), sum);
  return sum;
}

// The tensor-core paths: row i of op(A) and column j of op(B) as the
// patterns numerics::mma_dot reads, TF32 inputs first rounded to nearest even.
struct DotOperands {
  std::vector<std::uint32_t> a, b;
};

void gather(const MatrixView& a, const MatrixView& b, int i, int j, int k, MmaFormat format,
            DotOperands& out) {
  out.a.resize(k);
  out.b.resize(k);
  for (int p = 0; p < k; ++p) {
    out.a[p] = a.bits(i, p);
    out.b[p] = b.bits(p, j);
  }
  if (format != MmaFormat::tf32) return;
  const auto to_tf32 = [](std::uint32_t bits) {
    return numerics::float_bits(numerics::fp32_to_tf32(numerics::float_from_bits(bits),
                                                       numerics::Tf32Rounding::nearest_even));
  };
  for (int p = 0; p < k; ++p) {
    out.a[p] = to_tf32(out.a[p]);
    out.b[p] = to_tf32(out.b[p]);
  }
}

// fp16 accumulation: each block's sum (exact products, fp32 inside the
// block) is rounded to fp16 before it becomes the next block's c.
float fp16_accumulated_dot(const DotOperands& x, int k) {
  const int block = numerics::mma_k_block(MmaFormat::fp16);
  float sum = 0.0f;
  for (int start = 0; start < k; start += block) {
    const int length = k - start < block ? k - start : block;
    sum = round_to_fp16(numerics::mma_block_fma(x.a.data() + start, x.b.data() + start, length, sum,
                                                MmaFormat::fp16));
  }
  return sum;
}

MmaFormat tensor_core_format(const GemmCall& call) {
  if (call.math_mode == MathMode::tf32_tensor_op) return MmaFormat::tf32;
  return call.types.inputs == ElementType::bf16 ? MmaFormat::bf16 : MmaFormat::fp16;
}

void store(void* c, std::size_t index, float value, ElementType type) {
  auto* bytes = static_cast<unsigned char*>(c);
  if (type == ElementType::fp32) {
    std::memcpy(bytes + index * 4, &value, 4);
    return;
  }
  const std::uint16_t pattern = type == ElementType::fp16 ? numerics::fp32_to_fp16_bits(value)
                                                          : numerics::fp32_to_bf16_bits(value);
  std::memcpy(bytes + index * 2, &pattern, 2);
}

float load(const void* c, std::size_t index, ElementType type) {
  const auto* bytes = static_cast<const unsigned char*>(c);
  if (type == ElementType::fp32) {
    float value;
    std::memcpy(&value, bytes + index * 4, 4);
    return value;
  }
  std::uint16_t pattern;
  std::memcpy(&pattern, bytes + index * 2, 2);
  return MatrixView::to_float(pattern, type);
}

}  // namespace

void cpu_gemm(const GemmCall& call) {
  validate(call);
  const MatrixView a(call.a, call.lda, call.types.inputs, call.op_a == Op::transpose);
  const MatrixView b(call.b, call.ldb, call.types.inputs, call.op_b == Op::transpose);
  const bool fp32_math =
      call.types.inputs == ElementType::fp32 && call.math_mode != MathMode::tf32_tensor_op;
  const bool fp16_accumulate = call.types.accumulate == Accumulate::fp16;
  const MmaFormat format = tensor_core_format(call);
  // The epilogue runs in the accumulation precision: alpha and beta are
  // fp16 values under fp16 accumulation, as cuBLAS takes them.
  const float alpha = fp16_accumulate ? round_to_fp16(call.alpha) : call.alpha;
  const float beta = fp16_accumulate ? round_to_fp16(call.beta) : call.beta;

  DotOperands operands;
  for (int j = 0; j < call.n; ++j) {
    for (int i = 0; i < call.m; ++i) {
      float sum = 0.0f;
      if (fp32_math) {
        sum = fp32_dot(a, b, i, j, call.k);
      } else {
        gather(a, b, i, j, call.k, format, operands);
        sum = fp16_accumulate
                  ? fp16_accumulated_dot(operands, call.k)
                  : numerics::mma_dot(operands.a.data(), operands.b.data(), call.k, 0.0f, format);
      }
      const std::size_t index =
          static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * call.ldc;
      // beta == 0: C is not read, so NaNs there do not propagate (cuBLAS's rule).
      float result = call.beta == 0.0f
                         ? alpha * sum
                         : std::fma(alpha, sum, beta * load(call.c, index, call.types.output));
      if (fp16_accumulate) result = round_to_fp16(result);
      store(call.c, index, result, call.types.output);
    }
  }
}

}  // namespace cudalab::blas
