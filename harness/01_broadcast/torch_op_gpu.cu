// Lab 01's PyTorch operator for CUDA tensors (exercise 6): the lab's
// broadcast_op.cuh compiled by nvcc. Registers the CUDA implementation; built
// into lab01_torch_op only where the PyTorch found has CUDA
// (cmake/CudalabTorchOp.cmake).
#include "broadcast_op.cuh"
