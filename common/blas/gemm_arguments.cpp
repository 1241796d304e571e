// Names of the GEMM vocabulary, and the argument checks both backends run
// before anything else.
#include <stdexcept>
#include <string>

#include "cudalab/blas/cpu_gemm.hpp"
#include "cudalab/blas/gemm_types.hpp"

namespace cudalab::blas {

std::string to_string(Op op) { return op == Op::none ? "none" : "transpose"; }

std::string to_string(ElementType type) {
  switch (type) {
    case ElementType::fp32:
      return "fp32";
    case ElementType::fp16:
      return "fp16";
    case ElementType::bf16:
      return "bf16";
  }
  return "unknown element type";
}

std::string to_string(Accumulate accumulate) {
  return accumulate == Accumulate::fp32 ? "fp32" : "fp16";
}

std::string to_string(MathMode mode) {
  switch (mode) {
    case MathMode::pedantic:
      return "pedantic";
    case MathMode::tf32_tensor_op:
      return "tf32_tensor_op";
    case MathMode::default_math:
      return "default_math";
  }
  return "unknown math mode";
}

int element_bytes(ElementType type) { return type == ElementType::fp32 ? 4 : 2; }

namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw std::invalid_argument("cudalab::blas::gemm: " + why);
}

void require_size(const char* name, int value) {
  if (value < 0) refuse(std::string(name) + " = " + std::to_string(value) + " is negative");
}

// cuBLAS asks ld >= max(1, rows) even of an empty matrix.
void require_leading_dimension(const char* name, int ld, int rows, const char* rows_name) {
  const int least = rows > 1 ? rows : 1;
  if (ld < least) {
    refuse(std::string(name) + " = " + std::to_string(ld) + " is less than max(1, " + rows_name +
           " = " + std::to_string(rows) + ")");
  }
}

void require_data(const char* name, const void* pointer, int rows, int columns) {
  if (pointer == nullptr && rows > 0 && columns > 0) {
    refuse(std::string(name) + " is null but holds a " + std::to_string(rows) + " x " +
           std::to_string(columns) + " matrix");
  }
}

bool supported(const GemmTypes& t, MathMode mode) {
  using E = ElementType;
  if (t.inputs == E::fp32) {
    return t.output == E::fp32 && t.accumulate == Accumulate::fp32;  // any math mode
  }
  if (mode != MathMode::default_math) return false;
  if (t.accumulate == Accumulate::fp16) return t.inputs == E::fp16 && t.output == E::fp16;
  return t.output == E::fp32 || t.output == t.inputs;
}

std::size_t span_bytes(int rows, int columns, int ld, ElementType type) {
  if (rows == 0 || columns == 0) return 0;
  const auto elements = static_cast<std::size_t>(columns - 1) * static_cast<std::size_t>(ld) +
                        static_cast<std::size_t>(rows);
  return elements * static_cast<std::size_t>(element_bytes(type));
}

}  // namespace

MatrixBytes matrix_bytes(const GemmCall& call) {
  const bool a_transposed = call.op_a == Op::transpose;
  const bool b_transposed = call.op_b == Op::transpose;
  MatrixBytes bytes;
  bytes.a = span_bytes(a_transposed ? call.k : call.m, a_transposed ? call.m : call.k, call.lda,
                       call.types.inputs);
  bytes.b = span_bytes(b_transposed ? call.n : call.k, b_transposed ? call.k : call.n, call.ldb,
                       call.types.inputs);
  bytes.c = span_bytes(call.m, call.n, call.ldc, call.types.output);
  return bytes;
}

void validate(const GemmCall& call) {
  require_size("m", call.m);
  require_size("n", call.n);
  require_size("k", call.k);
  const bool a_transposed = call.op_a == Op::transpose;
  const bool b_transposed = call.op_b == Op::transpose;
  // Stored shapes: A is m x k or k x m, B is k x n or n x k.
  const int a_rows = a_transposed ? call.k : call.m;
  const int a_columns = a_transposed ? call.m : call.k;
  const int b_rows = b_transposed ? call.n : call.k;
  const int b_columns = b_transposed ? call.k : call.n;
  require_leading_dimension("lda", call.lda, a_rows, a_transposed ? "k" : "m");
  require_leading_dimension("ldb", call.ldb, b_rows, b_transposed ? "n" : "k");
  require_leading_dimension("ldc", call.ldc, call.m, "m");
  require_data("A", call.a, a_rows, a_columns);
  require_data("B", call.b, b_rows, b_columns);
  require_data("C", call.c, call.m, call.n);
  if (!supported(call.types, call.math_mode)) {
    refuse("inputs " + to_string(call.types.inputs) + ", output " + to_string(call.types.output) +
           ", " + to_string(call.types.accumulate) + " accumulation in math mode " +
           to_string(call.math_mode) +
           " is not one of the supported GEMMs (cudalab/blas/gemm_types.hpp)");
  }
}

}  // namespace cudalab::blas
