// Internal: how a warp-wide instruction that reads other lanes' registers
// (mma.sync: warp_mma.cpp, ldmatrix: warp_ldmatrix.cpp) meets its warp.
//
// On the GPU the instruction reads all 32 lanes' registers at once. Here
// each lane leaves a pointer to its registers in a per-block table and parks
// in a rendezvous (the warp collectives' own, warp.cpp); once all 32 have
// arrived each lane reads the others' registers from the table and computes
// its own result, then waits in a second rendezvous, so that no lane leaves
// (and reuses the stack its registers live on) while another still reads
// them. A call made by fewer lanes (the others exited, or took another
// branch) is a warp_collective report naming the caller's line.
#pragma once

#include <cstdint>
#include <cstring>
#include <source_location>
#include <sstream>
#include <string>
#include <vector>

#include "block_run.hpp"

namespace cudalab::emu::detail {

inline constexpr unsigned kFullWarp = 0xffffffffu;

// What one lane brought to the current call. `syncs` is the warp's count of
// completed collectives when the lane arrived: lanes meeting in one
// rendezvous arrived with the same count, a stale entry has an older one.
struct ExchangeEntry {
  const void* registers = nullptr;
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
  std::vector<ExchangeEntry> lanes;
};

inline ExchangeTable& exchange_table_for(const BlockRun& run) {
  thread_local ExchangeTable table;
  if (table.run != &run || table.launch != run.launch->id || table.block != run.info.block_linear ||
      table.lanes.size() != run.thread_count) {
    table.run = &run;
    table.launch = run.launch->id;
    table.block = run.info.block_linear;
    table.lanes.assign(run.thread_count, ExchangeEntry{});
  }
  return table;
}

inline bool same_site(const std::source_location& a, const std::source_location& b) {
  return a.line() == b.line() && a.column() == b.column() &&
         std::strcmp(a.file_name(), b.file_name()) == 0;
}

inline std::string hex_mask(unsigned mask) {
  std::ostringstream s;
  s << "0x" << std::hex << mask;
  return s.str();
}

// Whether all 32 lanes take part in this call; if not, why not.
inline std::string missing_lanes(const WarpState& warp, const ExchangeTable& table,
                                 unsigned warp_index, const ExchangeEntry& mine) {
  if (warp.existing != kFullWarp) {
    return "the warp has only the lanes " + hex_mask(warp.existing) +
           " (the block's thread count is not a multiple of 32)";
  }
  if (warp.exited != 0) return "lanes " + hex_mask(warp.exited) + " have exited";
  unsigned elsewhere = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const ExchangeEntry& other = table.lanes[warp_index * 32 + lane];
    if (!other.valid || other.syncs != mine.syncs || !same_site(other.site, mine.site)) {
      elsewhere |= 1u << lane;
    }
  }
  if (elsewhere != 0) {
    return "lanes " + hex_mask(elsewhere) + " are at another warp-synchronous call (divergence)";
  }
  return {};
}

// One warp-wide call: `mine` (this lane's registers) is shown to the warp;
// when all 32 lanes are there, compute(lanes) runs with every lane's
// registers (lanes[l] is lane l's `mine`) and the result is true; otherwise
// the report names `instruction`, `when_missing` says what the destination
// holds then, and the result is false.
template <class Registers, class Compute>
bool warp_exchange(const Registers& mine, const char* instruction, const char* when_missing,
                   const std::source_location& site, Compute&& compute) {
  ThreadState* me = current_thread;
  BlockRun* run = me->run;
  if (!run) return false;  // outside a kernel: nothing to meet
  WarpState& warp = run->warps[me->warp];
  ExchangeTable& table = exchange_table_for(*run);
  ExchangeEntry& entry = table.lanes[me->linear];
  entry = ExchangeEntry{&mine, warp.syncs, site, true};

  // Rendezvous 1: every lane's registers are in the table. Exited lanes
  // need not arrive at a collective, so the check below counts them.
  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);

  const std::string missing = missing_lanes(warp, table, me->warp, entry);
  const bool complete = missing.empty();
  if (complete) {
    const Registers* lanes[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
      lanes[lane] = static_cast<const Registers*>(table.lanes[me->warp * 32 + lane].registers);
    }
    compute(lanes);
  } else {
    run->report(ReportKind::warp_collective, me->linear,
                std::string(instruction) +
                    " must be executed by all 32 lanes of the warp together, but " + missing +
                    "; " + when_missing,
                &site, cudaErrorLaunchFailure);
  }

  // Rendezvous 2: nobody returns while another lane still reads its registers.
  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);
  entry.valid = false;
  return complete;
}

}  // namespace cudalab::emu::detail
