// Internal: how a warp-wide instruction that reads other lanes' registers
// (mma.sync: warp_mma.cpp, ldmatrix: warp_ldmatrix.cpp) meets its warp.
//
// On the GPU the instruction reads all 32 lanes' registers at once. Here the
// lanes meet in a rendezvous (the warp collectives' own, warp.cpp), in one of
// two forms:
//  * warp_exchange: each lane leaves a pointer to its registers in a
//    per-block table and parks; once all 32 have arrived, each lane reads
//    the others' registers and computes its own result; then all wait in a
//    second rendezvous, so that no lane leaves (and reuses the stack its
//    registers live on) while another still reads them (ldmatrix, wmma's
//    loads and stores).
//  * warp_exchange_values: each lane copies its registers into the table and
//    parks; the first lane to run once all 32 are there computes every
//    lane's result into the table (once per instruction, not 32 times), and
//    each lane copies its own out. Nobody reads another lane's stack, so one
//    rendezvous is enough (mma.sync, wmma::mma_sync).
// A call made by fewer lanes (the others exited, or took another branch) is a
// warp_collective report naming the caller's line.
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
  // Per warp: the warp's collective count after the last rendezvous a lane
  // found complete (0: none yet). The count is unique to one rendezvous, so
  // the other lanes of that call need not check again.
  std::vector<std::uint32_t> complete_after;
};

inline ExchangeTable& exchange_table_for(const BlockRun& run) {
  thread_local ExchangeTable table;
  if (table.run != &run || table.launch != run.launch->id || table.block != run.info.block_linear ||
      table.lanes.size() != run.thread_count) {
    table.run = &run;
    table.launch = run.launch->id;
    table.block = run.info.block_linear;
    table.lanes.assign(run.thread_count, ExchangeEntry{});
    table.complete_after.assign((run.thread_count + 31) / 32, 0);
  }
  return table;
}

inline bool same_site(const std::source_location& a, const std::source_location& b) {
  // One call site's file name is one string: comparing pointers first spares
  // 32 x 32 strcmp per instruction.
  return a.line() == b.line() && a.column() == b.column() &&
         (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

inline std::string hex_mask(unsigned mask) {
  std::ostringstream s;
  s << "0x" << std::hex << mask;
  return s.str();
}

// Whether all 32 lanes take part in this call; if not, why not. `entries`:
// the warp's 32 table entries (ExchangeEntry or ValueEntry), in lane order.
template <class Entry>
std::string missing_lanes(const WarpState& warp, const Entry* entries, const Entry& mine) {
  if (warp.existing != kFullWarp) {
    return "the warp has only the lanes " + hex_mask(warp.existing) +
           " (the block's thread count is not a multiple of 32)";
  }
  if (warp.exited != 0) return "lanes " + hex_mask(warp.exited) + " have exited";
  unsigned elsewhere = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const Entry& other = entries[lane];
    if (!other.valid || other.syncs != mine.syncs || !same_site(other.site, mine.site)) {
      elsewhere |= 1u << lane;
    }
  }
  if (elsewhere != 0) {
    return "lanes " + hex_mask(elsewhere) + " are at another warp-synchronous call (divergence)";
  }
  return {};
}

// warp_exchange's two rendezvous: on_complete(entries) runs in every lane
// once all 32 are there (entries: the warp's table entries in lane order);
// otherwise this lane reports. The result: whether all 32 were there.
template <class OnComplete>
bool warp_rendezvous(const void* mine, const char* instruction, const char* when_missing,
                     const std::source_location& site, OnComplete&& on_complete) {
  ThreadState* me = current_thread;
  BlockRun* run = me->run;
  if (!run) return false;  // outside a kernel: nothing to meet
  WarpState& warp = run->warps[me->warp];
  ExchangeTable& table = exchange_table_for(*run);
  ExchangeEntry& entry = table.lanes[me->linear];
  entry = ExchangeEntry{mine, warp.syncs, site, true};

  // Rendezvous 1: every lane's registers are in the table. Exited lanes
  // need not arrive at a collective, so the check below counts them.
  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);

  // Between the two rendezvous the warp's count stays at warp.syncs.
  std::uint32_t& complete_after = table.complete_after[me->warp];
  const bool first = complete_after != warp.syncs;
  const std::string missing =
      first ? missing_lanes(warp, &table.lanes[me->warp * 32], entry) : std::string();
  const bool complete = missing.empty();
  if (complete) {
    complete_after = warp.syncs;
    on_complete(&table.lanes[me->warp * 32]);
  } else {
    run->report(ReportKind::warp_collective, me->linear,
                std::string(instruction) +
                    " must be executed by all 32 lanes of the warp together, but " + missing +
                    "; " + when_missing,
                &site, cudaErrorLaunchFailure);
  }

  // Rendezvous 2: nobody returns while another lane still uses its registers.
  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);
  entry.valid = false;
  return complete;
}

// One warp-wide call: `mine` (this lane's registers) is shown to the warp;
// when all 32 lanes are there, compute(lanes) runs with every lane's
// registers (lanes[l] is lane l's `mine`) and the result is true; otherwise
// the report names `instruction`, `when_missing` says what the destination
// holds then, and the result is false.
template <class Registers, class Compute>
bool warp_exchange(const Registers& mine, const char* instruction, const char* when_missing,
                   const std::source_location& site, Compute&& compute) {
  return warp_rendezvous(&mine, instruction, when_missing, site, [&](const ExchangeEntry* entries) {
    const Registers* lanes[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
      lanes[lane] = static_cast<const Registers*>(entries[lane].registers);
    }
    compute(lanes);
  });
}

// The by-value form, with one rendezvous instead of two. Each lane copies
// its registers into a per-worker table, whose entry also holds its result;
// once all 32 have arrived, the first lane to run (the last to arrive, which
// does not park) checks that the call is complete and runs
// compute(lanes, results) once, filling every lane's result in the table;
// each lane then copies its own out. As no lane reads another's stack, no
// lane waits for the others to finish: a lane that runs on to its next call
// writes only its own entry, after it has read its result, and that call
// cannot complete before every lane has arrived there too. A lane knows that
// its call was computed by the warp's collective count it arrived with: all
// 32 arrived with the same one, and only one rendezvous completes at each.
template <class Registers, class Result>
struct ValueEntry {
  Registers registers;
  Result result;
  std::uint32_t syncs = 0;
  std::source_location site;
  bool valid = false;  // ever used in this block (stale entries have older syncs)
};

template <class Registers, class Result>
struct ValueTable {
  const BlockRun* run = nullptr;
  std::uint64_t serial = 0;  // the run's block it was made for
  std::vector<ValueEntry<Registers, Result>> lanes;
  // Per warp: 1 + the collective count of the last call computed (0: none).
  std::vector<std::uint32_t> computed;
};

template <class Registers, class Result>
[[gnu::always_inline]] inline ValueTable<Registers, Result>& value_table_for(const BlockRun& run) {
  thread_local ValueTable<Registers, Result> table;
  if (table.serial != run.serial || table.run != &run) [[unlikely]] {
    table.run = &run;
    table.serial = run.serial;
    table.lanes.assign(run.thread_count, ValueEntry<Registers, Result>{});
    table.computed.assign((run.thread_count + 31) / 32, 0);
  }
  return table;
}

// fill(registers) writes this lane's registers into its table entry; once
// the warp is complete, compute(lanes, results) (lanes[l]: lane l's
// registers, results[l]: where lane l's result goes) runs once per call. The
// result: this lane's result in the table (valid until the lane's next call
// of this kind), or nullptr where not all 32 lanes were there, after a report
// naming `instruction` and saying `when_missing` (what the destination holds).
template <class Registers, class Result, class Fill, class Compute>
const Result* warp_exchange_values(Fill&& fill, const char* instruction, const char* when_missing,
                                   const std::source_location& site, Compute&& compute) {
  ThreadState* me = current_thread;
  BlockRun* run = me->run;
  if (!run) return nullptr;  // outside a kernel: nothing to meet
  WarpState& warp = run->warps[me->warp];
  auto& table = value_table_for<Registers, Result>(*run);
  auto& entry = table.lanes[me->linear];
  fill(entry.registers);
  entry.syncs = warp.syncs;
  entry.site = site;
  entry.valid = true;

  run->collective(WarpOp::sync, warp.existing, 0, 0, 32, site);

  if (table.computed[me->warp] == entry.syncs + 1) return &entry.result;  // another lane did
  // The first lane to run (once per call, off the path of the other 31).
  return [&]() [[gnu::noinline]] -> const Result* {
    auto* entries = &table.lanes[me->warp * 32];
    const std::string missing = missing_lanes(warp, entries, entry);
    if (!missing.empty()) {
      run->report(ReportKind::warp_collective, me->linear,
                  std::string(instruction) +
                      " must be executed by all 32 lanes of the warp together, but " + missing +
                      "; " + when_missing,
                  &site, cudaErrorLaunchFailure);
      return nullptr;
    }
    table.computed[me->warp] = entry.syncs + 1;
    const Registers* lanes[32];
    Result* results[32];
    for (unsigned lane = 0; lane < 32; ++lane) {
      lanes[lane] = &entries[lane].registers;
      results[lane] = &entries[lane].result;
    }
    compute(lanes, results);
    return &entry.result;
  }();
}

}  // namespace cudalab::emu::detail
