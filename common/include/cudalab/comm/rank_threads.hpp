// Ranks as host threads: what run_ranks (SimComm) and run_nccl_ranks
// (NcclComm) share.
#pragma once

#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cudalab::comm {

// Runs body(r) for every rank r in [0, ranks), each on a host thread of its
// own; waits for all of them and rethrows the first failure. In the failing
// rank's thread, right after it threw, on_failure(r, what) runs (a world
// wakes the ranks waiting for it there); on_exit(r) runs when the rank is
// done either way.
inline void run_rank_threads(int ranks, const std::function<void(int)>& body,
                             const std::function<void(int, const std::string&)>& on_failure = {},
                             const std::function<void(int)>& on_exit = {}) {
  std::mutex first_mutex;
  std::exception_ptr first;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      std::exception_ptr failure;
      std::string what;
      try {
        body(r);
      } catch (const std::exception& e) {
        failure = std::current_exception();
        what = e.what();
      } catch (...) {
        failure = std::current_exception();
        what = "an exception that is not a std::exception";
      }
      if (failure) {
        {
          std::lock_guard lock(first_mutex);
          if (!first) first = failure;
        }
        if (on_failure) on_failure(r, what);
      }
      if (on_exit) on_exit(r);
    });
  }
  for (std::thread& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace cudalab::comm
