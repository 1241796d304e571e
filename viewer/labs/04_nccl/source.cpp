// Lab 04 in the viewer: the lab's collectives run on simulated ranks (host
// threads over the emulator's virtual devices) through its harness
// (harness/04_nccl/backend.hpp), as tests/04_nccl runs them: rank r's input
// is r * 1000 + small integers, so every sum is exact and checked against a
// host reference. The timeline shows every message the ranks sent (rank x
// step), the traffic view the bytes each rank sent against the least an
// algorithm must send, and a `./lab bench 04` result file gives busbw
// against the message size (the plot view) and as bars.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "cudalab/comm/collective_reference.hpp"
#include "cudalab/emu/recorder.hpp"
#include "harness/04_nccl/backend.hpp"
#include "model/lab_source.hpp"
#include "ring_timeline.hpp"

namespace cudalab::viewer {
namespace {

namespace harness = ::lab04::harness;
using cudalab::comm::Collective;

enum Lab04Version : std::size_t {
  kRing,
  kRingReduceScatter,
  kAllReduceByHand,
  kAllGatherByHand,
  kReduceScatterByHand,
  kBroadcastByHand,
};
enum Lab04Parameter : std::size_t { kRanks, kCount, kInPlace, kRoot };

struct Collective04 {
  Collective which;
  bool ring;
  bool stop_after_reduce_scatter;
};
constexpr Collective04 kVersions[] = {
    {Collective::all_reduce, true, false},      {Collective::all_reduce, true, true},
    {Collective::all_reduce, false, false},     {Collective::all_gather, false, false},
    {Collective::reduce_scatter, false, false}, {Collective::broadcast, false, false},
};

// The tests' inputs (cudalab::comm::make_case) without their random seed, so
// that every run of the viewer is the same.
harness::CollectiveCase make_case(Collective which, int ranks, std::size_t count, bool in_place,
                                  int root) {
  return cudalab::comm::make_case(which, ranks, count, in_place, root, [](int r, std::size_t i) {
    return (i * 37 + static_cast<std::size_t>(r) * 11) % 1000;
  });
}

// What each rank's recv buffer must hold (the harness's reference). After
// the reduce-scatter alone only rank r's chunk (r + 1) mod n is defined:
// `checked[r]` is the element range compared, [begin, end).
struct Expected {
  std::vector<std::vector<float>> outputs;
  std::vector<std::pair<std::size_t, std::size_t>> checked;
};

Expected expected_of(const harness::CollectiveCase& c, bool after_reduce_scatter) {
  const int n = c.ranks();
  const std::size_t count = c.count;
  Expected e;
  e.outputs = cudalab::comm::expected_outputs(c);
  for (int r = 0; r < n; ++r) {
    std::pair<std::size_t, std::size_t> range{0, e.outputs[static_cast<std::size_t>(r)].size()};
    if (after_reduce_scatter) {
      const auto nn = static_cast<std::size_t>(n);
      const std::size_t chunk = (static_cast<std::size_t>(r) + 1) % nn;
      range = {chunk * count / nn, (chunk + 1) * count / nn};
    }
    e.checked.push_back(range);
  }
  return e;
}

// "rank 2, element 17: got 4511, want 4512", or "" when every rank is right.
std::string first_mismatch(const harness::RanksRun& run, const Expected& want) {
  if (run.outputs.size() != want.outputs.size())
    return "outputs of " + std::to_string(run.outputs.size()) + " ranks, want " +
           std::to_string(want.outputs.size());
  for (std::size_t r = 0; r < want.outputs.size(); ++r) {
    const auto& got = run.outputs[r];
    const auto [begin, end] = want.checked[r];
    if (got.size() < end)
      return "rank " + std::to_string(r) + ": " + std::to_string(got.size()) + " elements, want " +
             std::to_string(want.outputs[r].size());
    for (std::size_t i = begin; i < end; ++i)
      if (!(got[i] == want.outputs[r][i])) {
        char text[160];
        std::snprintf(text, sizeof text, "rank %zu, element %zu: got %.9g, want %.9g", r, i,
                      static_cast<double>(got[i]), static_cast<double>(want.outputs[r][i]));
        return text;
      }
  }
  return "";
}

// The bytes each rank sends in nccl-tests' bus-bandwidth model (the least
// any algorithm must send), and how it is written.
std::pair<double, std::string> ideal_bytes(const Collective04& v, int n, std::size_t count) {
  const double bytes = static_cast<double>(count) * sizeof(float);
  const double share = static_cast<double>(n - 1) / n;
  switch (v.which) {
    case Collective::all_reduce:
      if (v.stop_after_reduce_scatter) return {share * bytes, "ideal (n-1)/n x S"};
      return {2 * share * bytes, "ring ideal 2(n-1)/n x S"};
    case Collective::all_gather:
    case Collective::reduce_scatter:  // S = the whole buffer, count * n
      return {share * bytes * n, "ideal (n-1)/n x S"};
    case Collective::broadcast:
      return {bytes, "ideal S"};
  }
  return {0, ""};
}

// What a run fills; busbw vs size and the bars come from a result file.
const std::vector<View> kRunViews = {View::kTimeline, View::kTraffic};

class Lab04Source final : public LabSource {
 public:
  std::string title() const override { return "04 nccl"; }
  std::string code_origin() const override {
    return std::string(CUDALAB_VIEWER_GRADED) == "labs" ? "labs/04_nccl (your code)"
                                                        : "solutions/04_nccl (reference)";
  }
  std::vector<Version> versions() const override {
    return {
        {"ring all-reduce", "ex4: your ring_all_reduce, reduce-scatter then all-gather", false,
         kRunViews},
        {"ring: reduce-scatter only", "ex4: your ring, stopped after its reduce-scatter phase",
         false, kRunViews},
        {"all-reduce by hand", "ex1: your all-reduce from Comm send/recv", false, kRunViews},
        {"all-gather by hand", "ex1: your all-gather from Comm send/recv", false, kRunViews},
        {"reduce-scatter by hand", "ex1: your reduce-scatter from Comm send/recv", false,
         kRunViews},
        {"broadcast by hand", "ex1: your broadcast from Comm send/recv (root: the root parameter)",
         false, kRunViews},
    };
  }
  std::vector<View> views() const override { return views_in_descriptor("04"); }
  std::vector<Parameter> parameters() const override {
    return {{"ranks", "ranks", 1, 8, 4},
            {"count", "count", 1, 1 << 20, 1001},
            {"in_place", "in place", 0, 1, 0},
            {"root", "root", 0, 7, 1}};
  }
  std::vector<Preset> presets() const override {
    return {{"4 x 1001", {4, 1001, 0, 1}},
            {"3 x 10 in place", {3, 10, 1, 2}},
            {"8 x 4099", {8, 4099, 0, 5}},
            {"2 x 1", {2, 1, 0, 1}}};
  }
  bool has_launch_config() const override { return false; }
  std::string tab_title(View view) const override {
    if (view == View::kErrors) return "busbw vs size";
    if (view == View::kBars) return "busbw";
    if (view == View::kTraffic) return "Bytes sent";
    return {};
  }
  std::string note(View view) const override {
    if (view == View::kTimeline)
      return "One row per rank; a box for every message the rank sent, at its step (the "
             "sender's message number), labelled with the chunk it carried and the rank it went "
             "to (\"c2 > r1\"). A ring's reduce-scatter steps 0..n-2 and all-gather steps "
             "n-1..2n-3 have a colour each; an arrow runs from the message a rank received to the "
             "one in which it passed that chunk on. Hover a box for its elements and bytes.";
    if (view == View::kTraffic)
      return "Bytes each rank's Comm::send calls passed, by peer. The green line is the least a "
             "rank must send (nccl-tests' busbw model): a ring sends exactly that, all to rank + "
             "1; a gather to rank 0 then a broadcast gives the right sum but piles the bytes on "
             "rank 0.";
    if (view == View::kErrors)
      return "From a `./lab bench 04` result file: busbw = algbw x 2(n-1)/n for an all-reduce, "
             "(n-1)/n for all-gather and reduce-scatter, 1 for broadcast. It is not the link "
             "speed; for n = 2 an all-reduce's busbw equals its algbw.";
    return {};
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = validate(*this, request)) return RunOutcome::failure(*problem);
    const auto start = std::chrono::steady_clock::now();
    emu::Options options = emu::options();
    options.print_reports = false;  // shown in the window instead
    emu::ScopedOptions scoped(options);

    const Collective04 v = kVersions[request.version];
    const int n = static_cast<int>(request.values[kRanks]);
    const auto count = static_cast<std::size_t>(request.values[kCount]);
    const bool in_place = request.values[kInPlace] != 0;
    const int root = static_cast<int>(request.values[kRoot] % n);
    const harness::CollectiveCase c = make_case(v.which, n, count, in_place, root);

    auto backend = harness::make_emulator_backend();
    const harness::RankEntry& code = !v.ring ? harness::entry::by_hand(v.which)
                                     : v.stop_after_reduce_scatter
                                         ? harness::entry::ring_until_reduce_scatter
                                         : harness::entry::ring_all_reduce;
    const harness::RanksRun ran = backend->run(code, c, harness::CommKind::simulated);

    std::string problems;
    auto add = [&](const std::string& line) { problems += (problems.empty() ? "" : "\n") + line; };
    if (ran.observation.failed()) add(ran.observation.error_type + ": " + ran.observation.error);
    for (const std::string& report : ran.observation.reports) add(report);
    std::string verdict;
    if (!ran.observation.failed()) {
      const std::string wrong = first_mismatch(ran, expected_of(c, v.stop_after_reduce_scatter));
      if (wrong.empty()) {
        verdict = v.stop_after_reduce_scatter
                      ? "right: rank r holds chunk (r+1) mod n summed over all ranks"
                      : "right: every rank holds what it should";
      } else {
        verdict = "WRONG: " + wrong;
        add(verdict);
      }
    } else {
      verdict = "FAILED: " + ran.observation.error_type;
    }

    std::string what = versions()[request.version].name + ", " + std::to_string(count) +
                       " floats per rank on " + std::to_string(n) + " ranks";
    if (v.which == Collective::broadcast) what += ", root " + std::to_string(root);
    if (in_place) what += ", in place";
    const std::string on = ", ranks as " + ran.comm + "  [" + code_origin() + "]";

    RunOutcome out;
    lab04::MessageLayout layout{n, count, in_place, v.ring};
    // An all-gather's recv buffer, which the offsets index, holds count * n.
    if (v.which == Collective::all_gather) layout.count = count * static_cast<std::size_t>(n);
    out.timeline = lab04::message_timeline(ran.messages, layout, what + ": " + verdict + on);
    const auto [ideal, ideal_label] = ideal_bytes(v, n, count);
    out.traffic = traffic_chart(ran.traffic.ranks, ran.traffic.bytes,
                                n > 1 ? std::optional<double>(ideal) : std::nullopt, ideal_label,
                                what + ": " + verdict);
    out.error = problems;
    if (ran.messages.empty() && n > 1) {  // a skeleton's TODO sends nothing
      const std::string why = ran.observation.failed() ? ran.observation.error
                                                       : "no rank sent a message (" + verdict + ")";
      set_unfinished(out, *this, request.version, not_done_yet(*this, v.ring ? 4 : 1, why));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
};

}  // namespace

std::unique_ptr<LabSource> make_lab_04_source() { return std::make_unique<Lab04Source>(); }

}  // namespace cudalab::viewer
