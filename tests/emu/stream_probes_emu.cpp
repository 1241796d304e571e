// The stream probes on the emulator: stream_probes.cuh compiled by the host
// compiler from its rewritten copy, instrumented (tests/emu/CMakeLists.txt),
// under the adversarial schedule, with the race reports each probe provoked.
#include "stream_probes.cuh"

namespace stream_probes {

Observation observe_on_emulator(Probe probe) {
  cudalab::emu::Options options = cudalab::emu::options();
  options.print_reports = false;  // the test looks at them
  // The probes' "not ordered" verdicts rely on the consumer running first.
  options.schedule = "adversarial";
  cudalab::emu::ScopedOptions scoped(options);
  cudalab::emu::Recording recording;
  Observation seen = observe(probe);
  for (const cudalab::emu::Report& report : recording.reports()) {
    if (report.kind == cudalab::emu::ReportKind::stream_race) {
      seen.stream_races.push_back(report.to_string());
    }
  }
  return seen;
}

}  // namespace stream_probes
