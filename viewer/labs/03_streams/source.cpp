// Lab 03 in the viewer: the Timeline view of the lab's scenarios, run with
// the lab's code through its harness (harness/03_streams/backend.hpp) on the
// emulator, each with the emulator's modelled timeline collected around it
// (cudalab/emu/timeline.hpp): what ran on which stream when, the event waits
// and default-stream rules that ordered it (arrows) and the races the
// checker found (red). The schedule parameter picks the emulator's order of
// queued work, so a race can be replayed under another seed. A GPU's
// timelines come from a `./lab bench 03` result file.
#include <algorithm>
#include <chrono>
#include <random>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/timeline.hpp"
#include "harness/03_streams/backend.hpp"
#include "model/bench_results.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

namespace harness = ::lab03::harness;
using ::lab03::StreamKind;

enum Lab03Version : std::size_t { kThreeSpins, kProducerConsumer, kPipeline };
enum Lab03Parameter : std::size_t { kSchedule };

// Exercise 1's spins: modelled time, so the lecture's 20 ms cost nothing here.
constexpr double kSpinMs = 20.0;
// Exercise 2: the producer's delay and the third stream's work, as in its test.
constexpr int kProducerCount = 100003;
constexpr double kProducerDelayMs = 1.0, kIndependentMs = 1.0;
// Exercise 5: as its overlap test on the emulator.
constexpr int kPipelineElements = 1 << 16, kPipelineChunks = 8, kPipelineIterations = 2;

// The schedule parameter as emu::Options::schedule: 0 adversarial, -1 fifo,
// any other number a seed.
std::string schedule_name(std::int64_t value) {
  if (value == 0) return "adversarial";
  if (value == -1) return "fifo";
  return std::to_string(value);
}

// Appends `part`'s rows to `into`, each row named "<prefix>: <row>" (just
// "<row>" with an empty prefix), with the
// span ids moved past those already there so that they stay unique.
void append(Timeline& into, const cudalab::Timeline& part, const std::string& prefix) {
  int next_id = 0;
  for (const TimelineRow& row : into.rows)
    for (const Span& span : row.spans) next_id = std::max(next_id, span.id + 1);
  Timeline converted = timeline_of(part);
  for (TimelineRow& row : converted.rows) {
    if (!prefix.empty()) row.name = prefix + ": " + row.name;
    for (Span& span : row.spans) {
      if (span.id >= 0) span.id += next_id;
      for (int& id : span.after) id += next_id;
    }
    into.rows.push_back(std::move(row));
  }
}

// Runs `scenario` with the modelled timeline collected and appends it; the
// harness call has waited for its work before it returns.
template <class Scenario>
harness::Observation collect(Timeline& into, const std::string& prefix, Scenario scenario) {
  emu::start_modelled_timeline();
  harness::Observation seen = scenario();
  append(into, emu::take_modelled_timeline(prefix), prefix);
  return seen;
}

void add_problem(std::string& problems, const std::string& where,
                 const harness::Observation& seen) {
  auto add = [&](const std::string& line) {
    problems += (problems.empty() ? "" : "\n") + where + ": " + line;
  };
  if (seen.failed()) add(seen.error_type + ": " + seen.error);
  for (const std::string& report : seen.reports) add(report);
}

class Lab03Source final : public LabSource {
 public:
  std::string title() const override { return "03 streams"; }
  std::string code_origin() const override {
    return std::string(CUDALAB_VIEWER_GRADED) == "labs" ? "labs/03_streams (your code)"
                                                        : "solutions/03_streams (reference)";
  }
  std::vector<Version> versions() const override {
    return {
        {"ex1: three spins, each stream kind",
         "ex1: spins of 20 ms on s, the default stream, s, with your make_stream for a "
         "blocking, a non-blocking and a per-thread-default s (one group of rows each)",
         false},
        {"ex2: producer / consumer",
         "ex2: your produce_then_consume: A filled on the default stream, summed on a side "
         "stream; without the event wait the two race (red)",
         false},
        {"ex5: pipeline over 1, 2, 4, 8 streams",
         "ex5: your pipeline, 8 chunks of copy in, compute, copy out, over 1, 2, 4 and 8 "
         "streams (one group of rows each)",
         false},
    };
  }
  std::vector<View> views() const override { return views_in_descriptor("03"); }
  std::vector<Parameter> parameters() const override {
    return {{"schedule", "schedule (0 adversarial, -1 fifo, N: seed N)", -1, 2147483647, 0}};
  }
  std::vector<Preset> presets() const override {
    return {{"adversarial", {0}}, {"fifo", {-1}}, {"seed 7919", {7919}}, {"seed 15838", {15838}}};
  }
  bool has_launch_config() const override { return false; }
  std::string note(View view) const override {
    if (view != View::kTimeline) return {};
    return "One row per stream, on the emulator's modelled clock (or a GPU's, from a result "
           "file). Boxes are coloured by kind; an arrow runs from an operation to one on another "
           "stream that an event wait or the legacy default stream ordered after it; red boxes "
           "joined by a red line raced (hover for the checker's report). Change the schedule "
           "and run again to replay under another order.";
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = validate(*this, request)) return RunOutcome::failure(*problem);
    const auto start = std::chrono::steady_clock::now();
    emu::Options options = emu::options();
    options.schedule = schedule_name(request.values[kSchedule]);
    options.print_reports = false;  // shown in the window instead
    emu::ScopedOptions scoped(options);

    RunOutcome out;
    Timeline timeline;
    timeline.title = versions()[request.version].name + ", schedule " + options.schedule +
                     ", on the emulator  [" + code_origin() + "]";
    auto backend = harness::make_emulator_backend();
    std::string problems;
    switch (request.version) {
      case kThreeSpins:
        for (StreamKind kind :
             {StreamKind::blocking, StreamKind::non_blocking, StreamKind::per_thread}) {
          const std::string name = ::lab03::to_string(kind);
          add_problem(problems, name, collect(timeline, name, [&] {
                        return backend->three_spins(kind, kSpinMs).observation;
                      }));
        }
        break;
      case kProducerConsumer: {
        float sum = 0, expected = 0;
        add_problem(problems, "producer/consumer", collect(timeline, "", [&] {
                      const auto r = backend->producer_consumer(kProducerCount, kProducerDelayMs,
                                                                kIndependentMs);
                      sum = r.sum, expected = r.expected;
                      return r.observation;
                    }));
        if (sum != expected)
          problems += (problems.empty() ? "" : "\n") + std::string("the consumer summed ") +
                      std::to_string(sum) + ", not " + std::to_string(expected);
        break;
      }
      default: {
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
        std::vector<float> in(kPipelineElements);
        for (float& x : in) x = dist(rng);
        for (int streams : {1, 2, 4, 8}) {
          const std::string name =
              std::to_string(streams) + (streams == 1 ? " stream" : " streams");
          add_problem(problems, name, collect(timeline, name, [&] {
                        return backend
                            ->pipeline(in, kPipelineChunks, streams, kPipelineIterations, true)
                            .observation;
                      }));
        }
      }
    }
    const bool empty = std::all_of(timeline.rows.begin(), timeline.rows.end(),
                                   [](const TimelineRow& row) { return row.spans.empty(); });
    if (empty) {  // version K runs exercise 1, 2 or 5; a skeleton's TODO queues nothing
      const int exercise = request.version == kThreeSpins         ? 1
                           : request.version == kProducerConsumer ? 2
                                                                  : 5;
      const std::string why = problems.empty()
                                  ? "it queued no work on any stream (the timeline is empty)"
                                  : problems.substr(0, problems.find('\n'));
      set_unfinished(out, *this, request.version, not_done_yet(*this, exercise, why));
    }
    out.timeline = std::move(timeline);
    out.error = problems;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_lab_03_source() { return std::make_unique<Lab03Source>(); }

}  // namespace cudalab::viewer
