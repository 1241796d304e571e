// On the emulator, what a lab call did besides its result: a Recording of
// its launches while the lab code runs, turned into the backend-free
// summaries of observation.hpp (reports always; coverage, sectors and write
// widths when RunOptions::trace asks for them). Reports are collected, not
// printed: the tests and `./lab run` show them where they belong.
#pragma once

#include <memory>

#include "cudalab/harness/observation.hpp"

namespace cudalab::harness {

class EmuObserver {
 public:
  explicit EmuObserver(const RunOptions& options);
  ~EmuObserver();
  EmuObserver(const EmuObserver&) = delete;
  EmuObserver& operator=(const EmuObserver&) = delete;

  // Ends the recording and fills `observation` with what it saw of `output`.
  void finish(Observation& observation, const OutputRegion& output);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cudalab::harness
