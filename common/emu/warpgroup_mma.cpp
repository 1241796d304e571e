// wgmma on the emulator (cudalab/wgmma.hpp): Hopper's warpgroup-wide,
// asynchronous tensor-core instruction.
//
// A warpgroup is 4 consecutive warps whose first is a multiple of 4: 128
// threads. mma_async, commit_group and wait_group are collectives of those
// 128: each thread leaves its call in a per-block table and parks
// (Waiting::warpgroup); the last to arrive checks that all made the same
// call, does the warpgroup's work once, and wakes the others. A warpgroup
// some of whose threads never arrive is reported when the block can go no
// further (report_stuck_warpgroup, called by the engine's deadlock report).
//
// mma_async: the A and B tiles are read from shared memory through their
// descriptors (wgmma_layout.hpp) at the issue, traced as the last
// arriver's 16-byte shared reads, and kept; the 64 x N D is computed then
// with numerics::mma_tile_m16n8 (the tensor-core model, in m16n8 pieces;
// the block size is numerics::wgmma_k_block; fp8 operands with
// numerics::fp8_dot, blocks of wgmma_fp8_k_block) and held until a wait_group
// completes the instruction's commit group. Meanwhile each thread's
// registers hold a NaN poison; an access to them through
// WgmmaAccumulator is reported, and so is operand memory that differs at
// the wait from what was read at the issue (the GPU may read it any time
// in between). wgmma.fence is per thread: an accumulator accessed since the
// thread's last fence and then given to an mma_async is reported.
#include <cstring>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "block_run.hpp"
#include "cluster_model.hpp"
#include "cudalab/emu/wgmma.hpp"
#include "cudalab/numerics.hpp"
#include "cudalab/numerics/mma_tile.hpp"
#include "cudalab/wgmma_layout.hpp"
#include "engine.hpp"
#include "mbarrier_model.hpp"
#include "warpgroup_mma.hpp"

namespace cudalab::emu::detail {

namespace {

constexpr unsigned kWarpgroup = 128;
// The shared window starts past the 1 KiB the GPU reserves
// (shared_window_offset, shared_memory.cpp).
constexpr std::uint32_t kReservedShared = 1024;
// What an accumulator holds while an mma_async writing it is in flight: a
// signalling NaN whose payload says "wgmma in flight" to whoever meets it.
constexpr std::uint32_t kInFlightPoison = 0x7fbad0c5u;

enum class Call : std::uint8_t { mma_async, commit_group, wait_group };

const char* name_of(Call call) {
  switch (call) {
    case Call::mma_async:
      return "wgmma.mma_async";
    case Call::commit_group:
      return "wgmma.commit_group";
    case Call::wait_group:
      return "wgmma.wait_group";
  }
  return "wgmma";
}

struct Arrival {
  Call call = Call::commit_group;
  WgmmaIssue issue{};
  int pending = 0;  // wait_group's argument
  std::source_location site;
};

// 16 bytes of an operand as the issue read them.
struct OperandChunk {
  const std::uint8_t* at;
  std::uint8_t bytes[16];
};

// One mma_async from issue to completion.
struct InFlight {
  unsigned group = 0;  // the commit group it joins: the warpgroup's commits at the issue
  std::source_location site;
  int per_thread = 0;
  std::vector<float*> d;  // thread t's registers
  std::vector<WgmmaAccumulatorState*> states;
  std::vector<float> results;  // [t * per_thread + i]
  std::vector<OperandChunk> operands;
  bool computed = false;  // false: the call was reported, D stays NaN
};

struct Warpgroup {
  unsigned arrived = 0;
  std::vector<unsigned> waiters;
  unsigned commits = 0;
  std::deque<InFlight> in_flight;
  bool partial_reported = false;
};

struct BlockWgmma {
  const BlockRun* run = nullptr;
  std::uint64_t serial = 0;
  std::vector<Arrival> arrivals;      // per thread
  std::vector<std::uint32_t> fences;  // per thread: wgmma.fence calls so far
  std::vector<Warpgroup> groups;
};

BlockWgmma& state_of(const BlockRun& run) {
  thread_local BlockWgmma s;
  if (s.serial != run.serial || s.run != &run) {
    s.run = &run;
    s.serial = run.serial;
    s.arrivals.assign(run.thread_count, Arrival{});
    s.fences.assign(run.thread_count, 0);
    s.groups.assign((run.thread_count + kWarpgroup - 1) / kWarpgroup, Warpgroup{});
  }
  return s;
}

std::string where(const std::source_location& site) {
  return std::string(site.file_name()) + ":" + std::to_string(site.line());
}

bool same_call(const Arrival& a, const Arrival& b) {
  if (a.call != b.call || a.site.line() != b.site.line() ||
      std::strcmp(a.site.file_name(), b.site.file_name()) != 0) {
    return false;
  }
  if (a.call == Call::wait_group) return a.pending == b.pending;
  if (a.call != Call::mma_async) return true;
  const WgmmaTypes& x = a.issue.types;
  const WgmmaTypes& y = b.issue.types;
  const bool same_types =
      x.fp8 == y.fp8 && (x.fp8 ? x.fp8_a == y.fp8_a && x.fp8_b == y.fp8_b : x.format == y.format);
  return same_types && a.issue.n == b.issue.n && a.issue.descriptor_a == b.issue.descriptor_a &&
         a.issue.descriptor_b == b.issue.descriptor_b && a.issue.accumulate == b.issue.accumulate &&
         a.issue.scale_a == b.issue.scale_a && a.issue.scale_b == b.issue.scale_b;
}

// The bytes of one operand element: 1 (fp8), 2 (fp16, bf16) or 4 (tf32).
int element_bytes_of(const WgmmaTypes& types) {
  if (types.fp8) return 1;
  return types.format == numerics::MmaFormat::tf32 ? 4 : 2;
}

// Reads one K-major operand (rows x 32 bytes) through its descriptor into
// patterns[row * k + kk], negated when scale is -1; false after a report.
bool read_operand(BlockRun& run, InFlight& op, std::uint64_t descriptor, int rows,
                  int element_bytes, int scale, const char* which, const void* pc,
                  std::vector<std::uint32_t>& patterns) {
  const WgmmaDescriptorFields f = wgmma_descriptor_fields(descriptor);
  const unsigned me = current_thread->linear;
  if (f.base_offset != 0) {
    run.report(ReportKind::warp_collective, me,
               std::string("wgmma.mma_async: the descriptor of ") + which +
                   " has a base offset; the emulator models tiles aligned to their swizzle "
                   "repeat (base offset 0) only",
               &op.site, cudaErrorLaunchFailure);
    return false;
  }
  const int k = 32 / element_bytes;
  const std::uint32_t sign_bit = 1u << (8 * element_bytes - 1);
  patterns.assign(static_cast<std::size_t>(rows * k), 0);
  for (int row = 0; row < rows; ++row) {
    for (int chunk = 0; chunk < 2; ++chunk) {
      const std::uint32_t address = wgmma_k_major_address(f, row, 16 * chunk);
      if (address < kReservedShared || address - kReservedShared + 16 > run.shared_bytes) {
        std::ostringstream what;
        what << "wgmma.mma_async: row " << row << " of " << which << " lies at shared address 0x"
             << std::hex << address << std::dec
             << " (descriptor start, LBO, SBO and swizzle), outside the block's shared memory";
        run.report(ReportKind::invalid_pointer, me, what.str(), &op.site, cudaErrorIllegalAddress);
        return false;
      }
      const auto* at =
          reinterpret_cast<const std::uint8_t*>(run.shared_low + (address - kReservedShared));
      observe_access(at, 16, kRead, pc);
      OperandChunk& kept = op.operands.emplace_back();
      kept.at = at;
      std::memcpy(kept.bytes, at, 16);
      for (int e = 0; e < 16 / element_bytes; ++e) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, at + e * element_bytes, static_cast<std::size_t>(element_bytes));
        if (scale < 0) bits ^= sign_bit;
        patterns[static_cast<std::size_t>(row * k + chunk * (16 / element_bytes) + e)] = bits;
      }
    }
  }
  return true;
}

// D = A * B + C over fp8 operands (patterns row * 32 + kk of A, col * 32 +
// kk of B), C and D 64 x n row-major: one numerics::fp8_dot per element
// (fp8 is rare enough in kernels to do without mma_tile_m16n8's vectors).
void fp8_product(const WgmmaTypes& types, int n, const std::vector<std::uint32_t>& a,
                 const std::vector<std::uint32_t>& b, std::vector<float>& c) {
  constexpr int k = 32;
  std::uint8_t row_of_a[k], column_of_b[k];
  for (int row = 0; row < 64; ++row) {
    for (int kk = 0; kk < k; ++kk) row_of_a[kk] = static_cast<std::uint8_t>(a[row * k + kk]);
    for (int col = 0; col < n; ++col) {
      for (int kk = 0; kk < k; ++kk) column_of_b[kk] = static_cast<std::uint8_t>(b[col * k + kk]);
      float& d = c[static_cast<std::size_t>(row * n + col)];
      d = numerics::fp8_dot(row_of_a, column_of_b, k, d, types.fp8_a, types.fp8_b);
    }
  }
}

// D = A * B (+ C) for the warpgroup's 128 issues; the threads' C are their
// registers, or the result of an earlier mma_async still in flight on them.
void issue(BlockRun& run, Warpgroup& group, const Arrival* arrivals, const void* pc) {
  const WgmmaIssue& first = arrivals[0].issue;
  InFlight& op = group.in_flight.emplace_back();
  op.group = group.commits;
  op.site = arrivals[0].site;
  op.per_thread = first.n / 2;
  op.d.resize(kWarpgroup);
  op.states.resize(kWarpgroup);
  op.results.assign(static_cast<std::size_t>(kWarpgroup * op.per_thread),
                    numerics::float_from_bits(numerics::fp32_canonical_nan));
  const int n = first.n;
  std::vector<float> c(static_cast<std::size_t>(64 * n), 0.0f);
  for (unsigned t = 0; t < kWarpgroup; ++t) {
    const WgmmaIssue& mine = arrivals[t].issue;
    op.d[t] = mine.d;
    op.states[t] = mine.state;
    const float* source = mine.d;
    if (mine.state->in_flight) {  // chained: C is the newest result for these registers
      for (auto it = group.in_flight.rbegin() + 1; it != group.in_flight.rend(); ++it) {
        if (it->d[t] == mine.d) {
          source = &it->results[t * static_cast<std::size_t>(it->per_thread)];
          break;
        }
      }
    }
    for (int i = 0; i < op.per_thread; ++i) {
      const numerics::MatrixCoord at = wgmma_accumulator_element(static_cast<int>(t), i);
      if (first.accumulate) c[static_cast<std::size_t>(at.row * n + at.col)] = source[i];
    }
  }
  std::vector<std::uint32_t> a, b;
  const int element_bytes = element_bytes_of(first.types);
  const bool read =
      read_operand(run, op, first.descriptor_a, 64, element_bytes, first.scale_a, "A", pc, a) &&
      read_operand(run, op, first.descriptor_b, n, element_bytes, first.scale_b, "B", pc, b);
  if (read && first.types.fp8) {
    fp8_product(first.types, n, a, b, c);
  } else if (read) {
    const numerics::MmaFormat format = first.types.format;
    const int k = 32 / element_bytes;
    std::uint32_t a_tile[16 * 16], b_tile[16 * 8];
    float c_tile[16 * 8], d_tile[16 * 8];
    for (int warp = 0; warp < 4; ++warp) {
      for (int row = 0; row < 16; ++row)
        for (int kk = 0; kk < k; ++kk) a_tile[row * k + kk] = a[(16 * warp + row) * k + kk];
      for (int col0 = 0; col0 < n; col0 += 8) {
        for (int kk = 0; kk < k; ++kk)
          for (int col = 0; col < 8; ++col) b_tile[kk * 8 + col] = b[(col0 + col) * k + kk];
        for (int row = 0; row < 16; ++row)
          for (int col = 0; col < 8; ++col)
            c_tile[row * 8 + col] = c[static_cast<std::size_t>((16 * warp + row) * n + col0 + col)];
        numerics::mma_tile_m16n8(format, k, numerics::wgmma_k_block(format), a_tile, b_tile, c_tile,
                                 d_tile);
        for (int row = 0; row < 16; ++row)
          for (int col = 0; col < 8; ++col)
            c[static_cast<std::size_t>((16 * warp + row) * n + col0 + col)] = d_tile[row * 8 + col];
      }
    }
  }
  if (read) {
    for (unsigned t = 0; t < kWarpgroup; ++t) {
      for (int i = 0; i < op.per_thread; ++i) {
        const numerics::MatrixCoord at = wgmma_accumulator_element(static_cast<int>(t), i);
        op.results[t * static_cast<std::size_t>(op.per_thread) + i] =
            c[static_cast<std::size_t>(at.row * n + at.col)];
      }
    }
    op.computed = true;
  }
  const float poison = numerics::float_from_bits(kInFlightPoison);
  for (unsigned t = 0; t < kWarpgroup; ++t) {
    for (int i = 0; i < op.per_thread; ++i) op.d[t][i] = poison;
    op.states[t]->in_flight = true;
    op.states[t]->early_reported = false;
    op.states[t]->accessed_at_fence = kNotAccessed;
  }
}

// Completes the instructions of the groups committed before the newest
// `pending` ones: their operands must be as they were, their D lands.
void complete(BlockRun& run, Warpgroup& group, int pending) {
  const unsigned done_below =
      group.commits > static_cast<unsigned>(pending) ? group.commits - pending : 0;
  // Peers' multicast copies into this block count as in flight from here on.
  if (run.cluster) [[unlikely]]
    take_posted_copies(run);
  while (!group.in_flight.empty() && group.in_flight.front().group < done_below) {
    InFlight& op = group.in_flight.front();
    for (const OperandChunk& chunk : op.operands) {
      const auto at = reinterpret_cast<std::uintptr_t>(chunk.at);
      // An async copy issued onto the tile and not landed yet (a stage freed
      // too early, refilled by the producer) may land, on the GPU, while the
      // tensor core still reads: as much a race as an overwrite that landed.
      const std::source_location* copy =
          run.async_copies_in_flight > 0 ? async_copy_in_flight_over(run, at, 16) : nullptr;
      if (std::memcmp(chunk.at, chunk.bytes, 16) != 0 || copy) {
        std::ostringstream what;
        what << "the operand tile of the wgmma.mma_async at " << where(op.site)
             << (copy ? " is the destination of an async copy issued at " + where(*copy) +
                            " and still in flight"
                      : std::string(" was overwritten in shared memory"))
             << " (offset " << at - run.shared_low
             << ") before the wgmma.wait_group that completes it: the tensor core may read it "
                "any time until then";
        run.report(ReportKind::intra_block_race, current_thread->linear, what.str(), &op.site,
                   cudaSuccess);
        break;
      }
    }
    for (unsigned t = 0; t < kWarpgroup; ++t) {
      std::memcpy(op.d[t], &op.results[t * static_cast<std::size_t>(op.per_thread)],
                  sizeof(float) * static_cast<std::size_t>(op.per_thread));
      bool newer = false;  // a later instruction in flight still writes these registers
      for (std::size_t j = 1; j < group.in_flight.size(); ++j)
        newer |= group.in_flight[j].d[t] == op.d[t];
      op.states[t]->in_flight = newer;
    }
    group.in_flight.pop_front();
  }
}

// The warpgroup's rendezvous; `arrival` is this thread's call. The last to
// arrive runs on_complete(arrivals of the 128) if all made the same call.
template <class OnComplete>
void meet(const Arrival& arrival, OnComplete&& on_complete) {
  ThreadState* me = current_thread;
  BlockRun* run = me->run;
  if (!run) return;  // outside a kernel
  BlockWgmma& s = state_of(*run);
  const unsigned index = me->linear / kWarpgroup;
  Warpgroup& group = s.groups[index];
  if ((index + 1) * kWarpgroup > run->thread_count) {
    if (!group.partial_reported) {
      group.partial_reported = true;
      std::ostringstream what;
      what << name_of(arrival.call) << " is executed by a warpgroup, 128 threads (4 warps), but "
           << "the block has " << run->thread_count << " threads, so threads " << index * kWarpgroup
           << "-" << run->thread_count - 1
           << " make a partial warpgroup; the instruction is not executed";
      run->report(ReportKind::warp_collective, me->linear, what.str(), &arrival.site,
                  cudaErrorLaunchFailure);
    }
    return;
  }
  s.arrivals[me->linear] = arrival;
  if (++group.arrived < kWarpgroup) {
    group.waiters.push_back(me->linear);
    run->extra[me->linear].waiting = Waiting::warpgroup;
    run->extra[me->linear].wait_site = arrival.site;
    run->park();
    return;
  }
  const Arrival* arrivals = &s.arrivals[index * kWarpgroup];
  std::vector<unsigned> elsewhere;
  for (unsigned t = 0; t < kWarpgroup; ++t) {
    if (!same_call(arrivals[t], arrival)) elsewhere.push_back(index * kWarpgroup + t);
  }
  if (elsewhere.empty()) {
    on_complete(*run, group, arrivals);
  } else {
    const Arrival& other = s.arrivals[elsewhere.front()];
    std::ostringstream what;
    what << name_of(arrival.call) << " must be executed by all 128 threads of the warpgroup "
         << "together with the same operands, but " << elsewhere.size() << " thread(s) "
         << thread_list(*run, elsewhere) << " made " << name_of(other.call) << " at "
         << where(other.site) << " with other operands or at another line (divergence)";
    run->report(ReportKind::warp_collective, me->linear, what.str(), &arrival.site,
                cudaErrorLaunchFailure);
  }
  group.arrived = 0;
  for (unsigned t : group.waiters) run->make_ready(t);
  group.waiters.clear();
}

}  // namespace

void wgmma_accumulator_access(WgmmaAccumulatorState& state) {
  ThreadState* me = current_thread;
  if (!me->run) return;
  const CheckingAnAccess scope;
  BlockWgmma& s = state_of(*me->run);
  state.accessed_at_fence = s.fences[me->linear];
  if (state.in_flight && !state.early_reported) [[unlikely]] {
    state.early_reported = true;
    const Warpgroup& group = s.groups[me->linear / kWarpgroup];
    std::string issued_at = "?";
    for (const InFlight& op : group.in_flight) {
      for (const WgmmaAccumulatorState* st : op.states) {
        if (st == &state) issued_at = where(op.site);
      }
    }
    me->run->report(ReportKind::warp_collective, me->linear,
                    "the wgmma accumulator declared at " + where(state.declared) +
                        " is accessed while the wgmma.mma_async at " + issued_at +
                        " that writes it is in flight: wait for it with wgmma_wait_group first "
                        "(its registers hold no result until then)",
                    &state.declared, cudaSuccess);
  }
}

void wgmma_fence(const std::source_location&) {
  ThreadState* me = current_thread;
  if (!me->run) return;
  ++state_of(*me->run).fences[me->linear];
}

void wgmma_mma_async(const WgmmaIssue& issue_args, const std::source_location& site) {
  ThreadState* me = current_thread;
  if (!me->run) return;
  const CheckingAnAccess scope;
  BlockWgmma& s = state_of(*me->run);
  WgmmaAccumulatorState& state = *issue_args.state;
  if (state.accessed_at_fence == s.fences[me->linear]) [[unlikely]] {
    me->run->report(ReportKind::warp_collective, me->linear,
                    "wgmma.mma_async at " + where(site) + " uses the accumulator declared at " +
                        where(state.declared) +
                        ", which this thread accessed after its last wgmma.fence (or never "
                        "fenced): call wgmma_fence() between touching the accumulator and the "
                        "mma_async, or the tensor core may see the registers' old values",
                    &site, cudaSuccess);
    state.accessed_at_fence = kNotAccessed;
  }
  const void* pc = __builtin_return_address(0);
  Arrival arrival;
  arrival.call = Call::mma_async;
  arrival.issue = issue_args;
  arrival.site = site;
  meet(arrival, [&](BlockRun& run, Warpgroup& group, const Arrival* arrivals) {
    issue(run, group, arrivals, pc);
  });
}

void wgmma_commit_group(const std::source_location& site) {
  Arrival arrival;
  arrival.call = Call::commit_group;
  arrival.site = site;
  const CheckingAnAccess scope;
  meet(arrival, [](BlockRun&, Warpgroup& group, const Arrival*) { ++group.commits; });
}

void wgmma_wait_group(int pending, const std::source_location& site) {
  Arrival arrival;
  arrival.call = Call::wait_group;
  arrival.pending = pending;
  arrival.site = site;
  const CheckingAnAccess scope;
  meet(arrival, [pending](BlockRun& run, Warpgroup& group, const Arrival*) {
    complete(run, group, pending);
  });
}

bool report_stuck_warpgroup(BlockRun& run) {
  std::vector<unsigned> waiting, gone;
  for (unsigned t = 0; t < run.thread_count; ++t) {
    if (run.extra[t].waiting == Waiting::warpgroup) waiting.push_back(t);
    if (run.extra[t].waiting == Waiting::exited) gone.push_back(t);
  }
  if (waiting.empty()) return false;
  const unsigned first = waiting.front();
  const unsigned group = first / kWarpgroup;
  std::vector<unsigned> absent;
  for (unsigned t = group * kWarpgroup; t < (group + 1) * kWarpgroup; ++t) {
    if (run.extra[t].waiting != Waiting::warpgroup) absent.push_back(t);
  }
  std::ostringstream what;
  what << waiting.size() << " thread(s) " << thread_list(run, waiting) << " wait in "
       << "a wgmma call at " << where(run.extra[first].wait_site)
       << ", which all 128 threads of a warpgroup must make together, but " << absent.size()
       << " thread(s) " << thread_list(run, absent) << " of warpgroup " << group << " never arrive";
  if (!gone.empty()) what << " (" << gone.size() << " thread(s) of the block exited)";
  what << "; on a GPU the warpgroup would hang";
  run.report(ReportKind::warp_collective, first, what.str(), &run.extra[first].wait_site,
             cudaErrorLaunchFailure);
  return true;
}

}  // namespace cudalab::emu::detail
