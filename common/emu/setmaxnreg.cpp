// setmaxnreg on the emulator (cudalab/setmaxnreg.hpp): registers are not
// modelled, so the instruction changes nothing; what is checked is what
// would make it undefined on the GPU and that a header cannot see, a block
// whose last warpgroup is incomplete.
#include <string>

#include "block_run.hpp"
#include "cudalab/setmaxnreg.hpp"

namespace cudalab::emu {

void check_setmaxnreg(unsigned count, bool increase, const std::source_location& site) {
  detail::BlockRun* run = detail::current_thread->run;
  if (!run || run->thread_count % 128 == 0) return;
  const detail::CheckingAnAccess quiet;
  run->report(ReportKind::warp_collective, detail::current_thread->linear,
              std::string("setmaxnreg.") + (increase ? "inc" : "dec") + " " +
                  std::to_string(count) + " at " + detail::format_site(site) + " in a block of " +
                  std::to_string(run->thread_count) +
                  " threads: it is executed by whole warpgroups (4 warps, 128 threads), and this "
                  "block's last warpgroup is incomplete. Use a block size that is a multiple of "
                  "128",
              &site, cudaErrorLaunchFailure);
  run->abort_block();
}

}  // namespace cudalab::emu
