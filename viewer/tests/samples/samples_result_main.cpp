// cudalab_samples_result OUT.json: writes the emulator samples' timeline (a
// tiled matmul's blocks) as a result file, for the test that opens a result
// file's timeline in the viewer.
#include <iostream>

#include "cudalab/results.hpp"
#include "emulator_samples.hpp"

int main(int argc, char** argv) {
  using namespace cudalab::viewer;
  if (argc != 2) {
    std::cerr << "usage: cudalab_samples_result OUT.json\n";
    return 2;
  }
  try {
    const auto samples = make_emulator_samples_source();
    const RunOutcome out = samples->run(default_request(*samples));
    if (!out.timeline) throw std::runtime_error("the samples gave no timeline: " + out.error);
    cudalab::ResultFile result = cudalab::new_result("cudalab_samples_result", "", argc, argv);
    cudalab::Timeline timeline{out.timeline->title, {}};
    for (const TimelineRow& row : out.timeline->rows) {
      cudalab::TimelineRow& r = timeline.rows.emplace_back(cudalab::TimelineRow{row.name, {}});
      for (const Span& s : row.spans) r.spans.push_back({s.name, s.start, s.end, s.kind});
    }
    result.add_timeline(std::move(timeline));
    cudalab::write_result(argv[1], result);
  } catch (const std::exception& e) {
    std::cerr << "cudalab_samples_result: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
