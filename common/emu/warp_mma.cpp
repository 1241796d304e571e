// mma.sync on the emulator: one warp-wide tensor-core instruction.
//
// On the GPU every lane holds a few registers of A, B and C, and the
// instruction reads all 32 lanes' registers at once. Here each lane parks in
// a rendezvous (the warp collectives' own, warp.cpp) after leaving a pointer
// to its registers in a per-block table; once all 32 have arrived, each lane
// rebuilds the whole A and B from the table, computes its own four elements
// of D with the block-FMA model (cudalab/numerics/block_fma.hpp) and waits in
// a second rendezvous, so that no lane leaves (and reuses the stack its
// registers live on) while another still reads them.
//
// The GPU requires every lane of the warp to execute the same mma.sync. A
// call made by fewer lanes (the others exited, or took another branch) is a
// warp_collective report naming the caller's line; D is then NaN.
#include <cstring>
#include <sstream>

#include "block_run.hpp"
#include "cudalab/emu/wmma.hpp"
#include "cudalab/numerics.hpp"

namespace cudalab::emu::detail {

namespace {

constexpr unsigned kFullWarp = 0xffffffffu;

// What one lane brought to the current call. `syncs` is the warp's count of
// completed collectives when the lane arrived: lanes meeting in one
// rendezvous arrived with the same count, a stale entry has an older one.
struct LaneEntry {
  const MmaRegisters* registers = nullptr;
  std::uint32_t syncs = 0;
  std::source_location site;
  bool valid = false;
};

// One table per worker thread, for the block it runs (all fibers of a block
// run on the worker that runs the block).
struct ExchangeTable {
  const BlockRun* run = nullptr;
  std::uint64_t launch = 0;
  std::uint64_t block = 0;
  std::vector<LaneEntry> lanes;
};

thread_local ExchangeTable exchange_table;

ExchangeTable& table_for(const BlockRun& run) {
  ExchangeTable& t = exchange_table;
  if (t.run != &run || t.launch != run.launch->id || t.block != run.info.block_linear ||
      t.lanes.size() != run.thread_count) {
    t.run = &run;
    t.launch = run.launch->id;
    t.block = run.info.block_linear;
    t.lanes.assign(run.thread_count, LaneEntry{});
  }
  return t;
}

bool same_site(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && a.column() == b.column() &&
         std::strcmp(a.file_name(), b.file_name()) == 0;
}

std::string hex(unsigned mask) {
  std::ostringstream s;
  s << "0x" << std::hex << mask;
  return s.str();
}

// Whether all 32 lanes take part in this call; if not, why not.
std::string missing_lanes(const WarpState& warp, const ExchangeTable& table, unsigned warp_index,
                          const LaneEntry& mine) {
  if (warp.existing != kFullWarp) {
    return "the warp has only the lanes " + hex(warp.existing) +
           " (the block's thread count is not a multiple of 32)";
  }
  if (warp.exited != 0) return "lanes " + hex(warp.exited) + " have exited";
  unsigned elsewhere = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const LaneEntry& other = table.lanes[warp_index * 32 + lane];
    if (!other.valid || other.syncs != mine.syncs || !same_site(other.site, mine.site)) {
      elsewhere |= 1u << lane;
    }
  }
  if (elsewhere != 0) {
    return "lanes " + hex(elsewhere) + " are at another warp-synchronous call (divergence)";
  }
  return {};
}

// Element `element` of 16-bit operands packed two to a register, the lower first.
std::uint32_t half_of(const std::uint32_t* registers, int element) {
  const std::uint32_t reg = registers[element / 2];
  return (element % 2 == 0) ? (reg & 0xffffu) : (reg >> 16);
}

// This lane's four elements of D, from every lane's registers.
void compute_d(const MmaRegisters* const* lanes, MmaShape shape, numerics::MmaFormat format,
               int k_block, unsigned my_lane, const float* c, float* d) {
  using namespace numerics;
  std::uint32_t a[16][16] = {};  // [row][k]
  std::uint32_t b[8][16] = {};   // [column][k]: one column of B is one dot product's operand
  int k = 0;
  if (shape == MmaShape::m16n8k16) {
    k = 16;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 8; ++e) {
        const MatrixCoord at = m16n8k16_a_element(lane, e);
        a[at.row][at.col] = half_of(lanes[lane]->a, e);
      }
      for (int e = 0; e < 4; ++e) {
        const MatrixCoord at = m16n8k16_b_element(lane, e);
        b[at.col][at.row] = half_of(lanes[lane]->b, e);
      }
    }
  } else {
    k = 8;
    for (int lane = 0; lane < 32; ++lane) {
      for (int e = 0; e < 4; ++e) {
        const MatrixCoord at = m16n8k8_tf32_a_element(lane, e);
        a[at.row][at.col] = lanes[lane]->a[e];
      }
      for (int e = 0; e < 2; ++e) {
        const MatrixCoord at = m16n8k8_tf32_b_element(lane, e);
        b[at.col][at.row] = lanes[lane]->b[e];
      }
    }
  }
  for (int i = 0; i < 4; ++i) {
    const MatrixCoord at = m16n8_c_element(static_cast<int>(my_lane), i);
    d[i] = mma_dot(a[at.row], b[at.col], k, c[i], format, k_block);
  }
}

const char* instruction_name(MmaShape shape, numerics::MmaFormat format) {
  if (shape == MmaShape::m16n8k8) return "mma.sync.m16n8k8 (tf32)";
  return format == numerics::MmaFormat::bf16 ? "mma.sync.m16n8k16 (bf16)"
                                             : "mma.sync.m16n8k16 (f16)";
}

}  // namespace

bool warp_mma(MmaShape shape, numerics::MmaFormat format, int k_block, const MmaRegisters& mine,
              float* d, const std::source_location& site) {
  ThreadState* me = current_thread;
  BlockRun* run = me->run;
  if (!run) {  // outside a kernel: nothing to meet
    for (int i = 0; i < 4; ++i) d[i] = numerics::float_from_bits(numerics::fp32_canonical_nan);
    return false;
  }
  WarpState& warp = run->warps[me->warp];
  ExchangeTable& table = table_for(*run);
  LaneEntry& entry = table.lanes[me->linear];
  entry = LaneEntry{&mine, warp.syncs, site, true};

  // Rendezvous 1: every lane's registers are in the table. Exited lanes
  // need not arrive at a collective, so the check below counts them.
  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);

  const std::string missing = missing_lanes(warp, table, me->warp, entry);
  const bool complete = missing.empty();
  if (complete) {
    const MmaRegisters* lanes[32];
    for (unsigned lane = 0; lane < 32; ++lane)
      lanes[lane] = table.lanes[me->warp * 32 + lane].registers;
    compute_d(lanes, shape, format, k_block, me->lane, mine.c, d);
  } else {
    run->report(ReportKind::warp_collective, me->linear,
                std::string(instruction_name(shape, format)) +
                    " must be executed by all 32 lanes of the warp together, but " + missing +
                    "; D is undefined (NaN here)",
                &site, cudaErrorLaunchFailure);
    for (int i = 0; i < 4; ++i) d[i] = numerics::float_from_bits(numerics::fp32_canonical_nan);
  }

  // Rendezvous 2: nobody returns while another lane still reads its registers.
  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);
  entry.valid = false;
  return complete;
}

}  // namespace cudalab::emu::detail
