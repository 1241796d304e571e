// Lab 01's PyTorch operator for CPU tensors (exercise 6): the lab's
// broadcast_op.cuh compiled by the host compiler, rewritten for the emulator
// and instrumented like backend_emu.cpp, so that its kernel runs, checked, on
// the CPU emulator. Registers the schema and the CPU implementation
// (cmake/CudalabTorchOp.cmake builds it into lab01_torch_op).
#include "broadcast_op.cuh"
