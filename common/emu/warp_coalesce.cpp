// cooperative_groups::coalesced_threads(): which lanes of a warp run one call
// together.
//
// On the GPU it is __activemask(): the lanes that execute the call in one
// go, which after a branch are the lanes that took that side. Lanes do not
// run in lockstep here, so the emulator answers the question the GPU's mask
// stands for: which lanes of the warp reach this call (this source line)
// before the warp can go on? Each lane parks at the call. The group forms
// when every live lane of the warp has arrived (straight-line code), or else
// when nothing in the block can run any more: every other lane has exited or
// waits somewhere else (a barrier, a collective, another coalesced_threads()
// call), so none of them can still join. The lanes of the other side of a
// branch are parked past it by then, and the group is the lanes of this side.
//
// What this cannot tell apart: a lane that reaches the same call in a later
// iteration of a loop, before the others went on, joins their group (on the
// GPU it would form its own).
#include "block_run.hpp"

namespace cudalab::emu::detail {

unsigned BlockRun::coalesce(const std::source_location& site) {
  ThreadState* me = current_thread;
  WarpState& warp = warps[me->warp];
  const unsigned bit = 1u << me->lane;
  const unsigned live = warp.existing & ~warp.exited;

  PendingCoalesce* group = nullptr;
  for (PendingCoalesce& g : warp.coalescing) {
    if (!(g.arrived & bit) && SiteKey::of(g.site) == SiteKey::of(site)) {
      group = &g;
      break;
    }
  }
  if (!group) {
    warp.coalescing.push_back(PendingCoalesce{site, 0});
    group = &warp.coalescing.back();
  }
  group->arrived |= bit;

  if (group->arrived == live) {  // the whole warp: the group forms at once
    const unsigned mask = group->arrived;
    const unsigned base_thread = me->warp * 32;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!(mask >> lane & 1u) || lane == me->lane) continue;
      extra[base_thread + lane].result = mask;
      make_ready(base_thread + lane);
      --coalescing_lanes;
    }
    warp.coalescing.erase(warp.coalescing.begin() + (group - warp.coalescing.data()));
    return mask;
  }
  extra[me->linear].waiting = Waiting::coalesce;
  extra[me->linear].wait_site = site;
  ++coalescing_lanes;
  park();
  return static_cast<unsigned>(extra[me->linear].result);
}

void BlockRun::resolve_coalescing() {
  for (std::size_t w = 0; w < warps.size(); ++w) {
    const unsigned base_thread = static_cast<unsigned>(w) * 32;
    for (const PendingCoalesce& group : warps[w].coalescing) {
      for (unsigned lane = 0; lane < 32; ++lane) {
        if (!(group.arrived >> lane & 1u)) continue;
        extra[base_thread + lane].result = group.arrived;
        make_ready(base_thread + lane);
      }
    }
    warps[w].coalescing.clear();
  }
  coalescing_lanes = 0;
}

unsigned coalesced_lanes(const std::source_location& site) {
  BlockRun* run = current_thread->run;
  if (!run) return 1u;  // host code: the caller alone
  return run->coalesce(site);
}

}  // namespace cudalab::emu::detail
