// The labs this build of the viewer can run.
#include "lab_source.hpp"

namespace cudalab::viewer {

std::vector<std::unique_ptr<LabSource>> available_labs() {
  std::vector<std::unique_ptr<LabSource>> labs;
  labs.push_back(make_lab01_model_source());
  return labs;
}

}  // namespace cudalab::viewer
