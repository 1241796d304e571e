// cudalab::tile: a Triton-like block language in C++, for lab 05 and lab 06.
//
// A program is a function of its program id that works on whole blocks;
// memory coalescing, shared memory and the threads of a CTA are the
// library's job, as they are the Triton compiler's:
//
//   Triton                                     cudalab::tile
//   @triton.jit                                struct Add { __device__ void operator()(
//   def add(x_ptr, y_ptr, out_ptr, n,              const float* x, const float* y, float* out,
//           BLOCK: tl.constexpr):                  int n) const {
//     pid = tl.program_id(0)                     const int pid = tile::program_id(0);
//     offs = pid * BLOCK + tl.arange(0, BLOCK)   const auto offs = pid * BLOCK +
//     tile::arange<BLOCK>(); mask = offs < n                            const auto mask = offs < n;
//     x = tl.load(x_ptr + offs, mask=mask)       const auto a = tile::load(x, offs, mask);
//     y = tl.load(y_ptr + offs, mask=mask)       const auto b = tile::load(y, offs, mask);
//     tl.store(out_ptr + offs, x + y, mask=mask) tile::store(out, offs, a + b, mask); } };
//   add[(triton.cdiv(n, BLOCK),)](x, y, o, n)  tile::launch(Add{}, tile::cdiv(n, BLOCK), x, y, o,
//   n);
//
// How it runs (the lowering; docs/tile.md has the pictures):
//   * one program is one CTA of kThreads = 128 threads (program.hpp);
//   * element e of a block lives in a register of thread e % kThreads
//     (block.hpp), so unit-stride offsets give coalesced warp requests;
//   * element-wise operations are per-thread register operations; a
//     broadcast that needs another thread's element goes through shared
//     memory (block.hpp);
//   * reductions: per thread, then warp shuffles, then shared memory with
//     __syncthreads, the result broadcast (reduce.hpp);
//   * dot stages both operands in shared memory (dot.hpp);
//   * masked-out elements are never accessed (memory.hpp).
// Every operation is called by all threads of the program together (the
// program's code is block-level, like Triton's), never under a condition
// that differs between threads.
//
// Three builds of one program: nvcc (the GPU), the host compiler against the
// emulator (every thread a fiber, every access traced), and the interpreter
// (CUDALAB_INTERPRET=1: each program a plain call on one CPU thread holding
// whole blocks, like TRITON_INTERPRET=1; fast, for checking the semantics).
#pragma once

#include "cudalab/tile/block.hpp"
#include "cudalab/tile/dot.hpp"
#include "cudalab/tile/memory.hpp"
#include "cudalab/tile/program.hpp"
#include "cudalab/tile/reduce.hpp"
