// Must not compile: `p->x` on a traced pointer would bypass the emulator's
// checks and trace. Its test passes when the message says what to write.
#include "cudalab/kernel.hpp"

__global__ void read_member(cudalab::global_ptr<const float4> p, cudalab::global_ptr<float> out) {
  out[0] = p->x;
}
