// threadIdx, blockIdx, blockDim and gridDim under the emulator: the values of
// the CUDA thread running on this OS thread (thread_state.hpp).
//
// Each is an object-like macro naming its CUDALAB_EMU_ spelling, as cheap as
// a builtin can be read. The names stay usable for host variables and members
// (`dim3 gridDim;`, cudaKernelNodeParams' `params.gridDim`) in files the
// source rewrite made (tools/emu_rewrite.py): it brackets the host
// declaration that uses one with `#pragma push_macro`/`#undef`/`pop_macro`,
// and device code inside that declaration reads the CUDALAB_EMU_ spelling.
#pragma once

#include "cudalab/emu/thread_state.hpp"

#if defined(__SANITIZE_THREAD__)
// Instrumented code (cudalab_emu_instrument): values read past the
// instrumentation, so that they cost no hook call (thread_state.hpp).
#define CUDALAB_EMU_threadIdx (::cudalab::emu::detail::thread_idx())
#define CUDALAB_EMU_blockIdx (::cudalab::emu::detail::block_idx())
#define CUDALAB_EMU_blockDim (::cudalab::emu::detail::block_dim())
#define CUDALAB_EMU_gridDim (::cudalab::emu::detail::grid_dim())
#else
#define CUDALAB_EMU_threadIdx (::cudalab::emu::detail::current_thread->thread_idx)
#define CUDALAB_EMU_blockIdx (::cudalab::emu::detail::current_thread->block->block_idx)
#define CUDALAB_EMU_blockDim (::cudalab::emu::detail::current_thread->block->block_dim)
#define CUDALAB_EMU_gridDim (::cudalab::emu::detail::current_thread->block->grid_dim)
#endif

#define threadIdx CUDALAB_EMU_threadIdx
#define blockIdx CUDALAB_EMU_blockIdx
#define blockDim CUDALAB_EMU_blockDim
#define gridDim CUDALAB_EMU_gridDim
