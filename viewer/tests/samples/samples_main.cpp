// cudalab_view_samples: the viewer with only the emulator samples, for the
// screenshot tests of the views no lab fills yet.
#include "emulator_samples.hpp"
#include "viewer_main.hpp"

int main(int argc, char** argv) {
  std::vector<std::unique_ptr<cudalab::viewer::LabSource>> labs;
  labs.push_back(cudalab::viewer::make_emulator_samples_source());
  return cudalab::viewer::run_viewer(argc, argv, std::move(labs));
}
