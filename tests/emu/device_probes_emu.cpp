// The device probes on the emulator: device_probes.cuh compiled by the host
// compiler against the emulator's runtime (not instrumented: only the
// kernels, device_probe_kernels_emu.cpp, are), with two virtual devices
// under the adversarial schedule, and the race and peer-access reports each
// probe provoked.
#include "device_probes.cuh"

namespace device_probes {

Observation observe_on_emulator(Probe probe) {
  cudalab::emu::Options options = cudalab::emu::options();
  options.devices = 2;
  options.print_reports = false;  // the test looks at them
  // The "not ordered" verdict relies on the consumer running first.
  options.schedule = "adversarial";
  cudalab::emu::ScopedOptions scoped(options);
  cudalab::emu::Recording recording;
  Observation seen = observe(probe);
  for (const cudalab::emu::Report& report : recording.reports()) {
    if (report.kind == cudalab::emu::ReportKind::stream_race) {
      seen.stream_races.push_back(report.to_string());
    }
    if (report.kind == cudalab::emu::ReportKind::peer_access) {
      seen.peer_access_errors.push_back(report.to_string());
    }
  }
  return seen;
}

}  // namespace device_probes
