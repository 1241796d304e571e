// The labs this build of the viewer can run: through each lab's harness
// where the build has it, else lab 01's built-in model.
#include "lab_source.hpp"

namespace cudalab::viewer {

#if CUDALAB_VIEWER_HAS_LAB01
std::unique_ptr<LabSource> make_lab01_harness_source();
#endif

std::vector<std::unique_ptr<LabSource>> available_labs() {
  std::vector<std::unique_ptr<LabSource>> labs;
#if CUDALAB_VIEWER_HAS_LAB01
  labs.push_back(make_lab01_harness_source());
#else
  labs.push_back(make_lab01_model_source());
#endif
  return labs;
}

}  // namespace cudalab::viewer
