// Warp collectives: shuffles, votes and __syncwarp with CUDA's semantics.
//
// Lanes do not run in lockstep here. A collective is a rendezvous: each lane
// named in the mask parks until the last one arrives, which computes every
// lane's result and wakes the others. As on the GPU, lanes that have exited
// need not arrive (the votes and __syncwarp count the others; a shuffle that
// reads an exited lane is reported). A lane that never arrives because it
// waits somewhere else shows up as a deadlock of the block, which the
// scheduler reports instead of hanging.
#include <bit>
#include <sstream>

#include "block_run.hpp"

namespace cudalab::emu::detail {

namespace {

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::sync:
      return "__syncwarp";
    case WarpOp::shfl:
      return "__shfl_sync";
    case WarpOp::shfl_up:
      return "__shfl_up_sync";
    case WarpOp::shfl_down:
      return "__shfl_down_sync";
    case WarpOp::shfl_xor:
      return "__shfl_xor_sync";
    case WarpOp::ballot:
      return "__ballot_sync";
    case WarpOp::any:
      return "__any_sync";
    case WarpOp::all:
      return "__all_sync";
    case WarpOp::match_any:
      return "__match_any_sync";
    case WarpOp::match_all:
      return "__match_all_sync";
  }
  return "?";
}

std::string hex(unsigned mask) {
  std::ostringstream s;
  s << "0x" << std::hex << mask;
  return s.str();
}

}  // namespace

// A collective called with a bad width or mask: reported, then made valid
// (width 32, the mask less lanes that do not exist, plus the caller's), so
// that the rest of the block runs on. Apart from collective(), whose every
// call would otherwise pay for the strings' frame.
[[gnu::noinline, gnu::cold]] void BlockRun::report_bad_collective(
    WarpOp op, unsigned& mask, int& width, const std::source_location& site) {
  ThreadState* me = current_thread;
  const WarpState& warp = warps[me->warp];
  const unsigned bit = 1u << me->lane;
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0) {
    report(ReportKind::warp_collective, me->linear,
           std::string(op_name(op)) + " with width " + std::to_string(width) +
               ": the width must be a power of two no larger than 32",
           &site, cudaErrorLaunchFailure);
    width = 32;
  }
  if (mask & ~warp.existing) {
    report(ReportKind::warp_collective, me->linear,
           std::string(op_name(op)) + " mask " + hex(mask) + " names lanes " +
               hex(mask & ~warp.existing) +
               " that do not exist in this warp (the block has fewer threads)",
           &site, cudaErrorLaunchFailure);
    mask &= warp.existing;
  }
  if (!(mask & bit)) {
    report(ReportKind::warp_collective, me->linear,
           std::string(op_name(op)) + " called by lane " + std::to_string(me->lane) +
               ", which its mask " + hex(mask) + " does not name",
           &site, cudaErrorLaunchFailure);
    mask |= bit;
  }
}

std::uint64_t BlockRun::collective(WarpOp op, unsigned mask, std::uint64_t value, int argument,
                                   int width, const std::source_location& site) {
  ThreadState* me = current_thread;
  WarpState& warp = warps[me->warp];
  const unsigned bit = 1u << me->lane;

  const bool bad_width = width <= 0 || width > 32 || (width & (width - 1)) != 0;
  if (bad_width || (mask & ~warp.existing) || !(mask & bit)) [[unlikely]] {
    report_bad_collective(op, mask, width, site);
  }
  mask &= ~warp.exited;  // exited lanes need not arrive

  PendingCollective* pending = nullptr;
  for (auto& p : warp.pending) {
    if (p.mask == mask && !(p.arrived & bit)) {
      pending = &p;
      break;
    }
  }
  if (!pending) {
    pending = &warp.pending.emplace_back(op, mask, width, site);
  } else if (pending->op != op) [[unlikely]] {
    report_different_collectives(op, *pending, site);
  }
  pending->values[me->lane] = value;
  pending->arguments[me->lane] = argument;
  pending->arrived |= bit;

  if (pending->arrived != pending->mask) {
    extra[me->linear].waiting = Waiting::warp;
    extra[me->linear].wait_site = site;
    park();
    return extra[me->linear].result;
  }
  complete(warp, *pending);
  std::uint64_t mine = extra[me->linear].result;
  warp.pending.erase(warp.pending.begin() + (pending - warp.pending.data()));
  return mine;
}

[[gnu::noinline, gnu::cold]] void BlockRun::report_different_collectives(
    WarpOp op, const PendingCollective& pending, const std::source_location& site) {
  report(ReportKind::warp_collective, current_thread->linear,
         std::string("lanes of one warp meet in different collectives: ") + op_name(op) + " at " +
             format_site(site) + " and " + op_name(pending.op) + " at " + format_site(pending.site),
         &site, cudaErrorLaunchFailure);
}

std::string BlockRun::stuck_collective(unsigned waiting_thread) const {
  const ThreadState& me = threads[waiting_thread];
  const WarpState& warp = warps[me.warp];
  const unsigned base_thread = me.warp * 32;
  const PendingCollective* stuck = nullptr;
  for (const auto& p : warp.pending) {
    if (p.arrived >> me.lane & 1u) stuck = &p;
  }
  std::ostringstream what;
  if (!stuck) {
    what << "thread " << waiting_thread << " waits in a warp collective that is not pending";
    return what.str();
  }
  std::vector<unsigned> arrived, elsewhere;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (stuck->arrived >> lane & 1u) arrived.push_back(base_thread + lane);
    // Exited lanes are no longer in the mask: only live lanes are missing.
    if ((stuck->mask & ~stuck->arrived) >> lane & 1u) elsewhere.push_back(base_thread + lane);
  }
  what << arrived.size() << " lane(s) " << thread_list(*this, arrived) << " wait in "
       << op_name(stuck->op) << " at " << format_site(stuck->site) << " for " << elsewhere.size()
       << " lane(s) " << thread_list(*this, elsewhere) << " that never arrive";
  const ThreadExtra& other = extra[elsewhere.empty() ? waiting_thread : elsewhere.front()];
  if (!elsewhere.empty() && other.waiting == Waiting::barrier) {
    what << ": they wait at __syncthreads() " << format_site(other.wait_site);
  } else if (!elsewhere.empty() && other.waiting == Waiting::warp) {
    what << ": they wait in another warp collective at " << format_site(other.wait_site);
  }
  what << ".";
  return what.str();
}

void BlockRun::complete(WarpState& warp, PendingCollective& p) {
  const unsigned base_thread = static_cast<unsigned>(&warp - warps.data()) * 32;
  if (p.op == WarpOp::sync) {  // nothing to compute: wake the lanes (mma.sync meets so)
    for (unsigned lanes = p.mask; lanes != 0; lanes &= lanes - 1) {
      const unsigned t = base_thread + static_cast<unsigned>(std::countr_zero(lanes));
      extra[t].result = 0;
      if (t != current_thread->linear) make_ready(t);
    }
    ++warp.syncs;
    return;
  }
  unsigned ballot = 0;
  bool all_equal = true;  // for match_all: every lane of the mask holds the same bits
  const unsigned first = static_cast<unsigned>(std::countr_zero(p.mask | (1u << 31)));
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(p.mask >> lane & 1u)) continue;
    if (p.values[lane] != 0) ballot |= 1u << lane;
    all_equal = all_equal && p.values[lane] == p.values[first];
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(p.mask >> lane & 1u)) continue;
    const unsigned w = static_cast<unsigned>(p.width);
    const unsigned segment = lane & ~(w - 1);
    const int arg = p.arguments[lane];
    long source = lane;  // a lane whose source is outside keeps its own value
    switch (p.op) {
      case WarpOp::shfl:
        source = segment + (static_cast<unsigned>(arg) & (w - 1));
        break;
      case WarpOp::shfl_up:
        source = static_cast<long>(lane) - arg;
        if (source < static_cast<long>(segment)) source = lane;
        break;
      case WarpOp::shfl_down:
        source = static_cast<long>(lane) + arg;
        if (source >= static_cast<long>(segment + w)) source = lane;
        break;
      case WarpOp::shfl_xor:
        source = static_cast<long>(lane ^ static_cast<unsigned>(arg));
        if (source >= static_cast<long>(segment + w)) source = lane;
        break;
      default:
        break;
    }
    std::uint64_t result = 0;
    switch (p.op) {
      case WarpOp::sync:
        break;
      case WarpOp::ballot:
        result = ballot;
        break;
      case WarpOp::any:
        result = ballot != 0;
        break;
      case WarpOp::all:
        result = ballot == p.mask;
        break;
      case WarpOp::match_any:
        for (unsigned other = 0; other < 32; ++other) {
          if ((p.mask >> other & 1u) && p.values[other] == p.values[lane]) result |= 1u << other;
        }
        break;
      case WarpOp::match_all:
        result = all_equal ? p.mask : 0u;
        break;
      default:
        if (warp.exited >> source & 1u) {
          // Undefined on a GPU (the value of a lane that is gone), so a bug.
          report(ReportKind::warp_collective, base_thread + lane,
                 std::string(op_name(p.op)) + " at " + format_site(p.site) + ": lane " +
                     std::to_string(lane) + " reads lane " + std::to_string(source) +
                     ", which has already exited (the value is undefined on a GPU)",
                 &p.site, cudaErrorLaunchFailure);
        }
        // Reading a lane outside the mask is undefined in CUDA; the emulator
        // returns the caller's own value.
        result = (p.mask >> source & 1u) ? p.values[source] : p.values[lane];
    }
    const unsigned t = base_thread + lane;
    extra[t].result = result;
    if (t != current_thread->linear) make_ready(t);
  }
  ++warp.syncs;
}

}  // namespace cudalab::emu::detail
