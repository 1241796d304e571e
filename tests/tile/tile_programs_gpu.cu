// The tile programs on the GPU: tile_programs.cuh compiled by nvcc, one CTA
// of 128 threads per program.
#include <memory>
#include <string>

#include "cudalab/harness/gpu_probe.hpp"
#include "tile_backend_impl.hpp"

namespace tile_tests {

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
  if (!cudalab::harness::gpu_available(why_not)) return nullptr;
  return std::make_unique<TileBackend>();
}

}  // namespace tile_tests
