// Lab 06 in the viewer: the fused forward's tile walk over key tiles (with
// the running m and l of one query row), the bytes naive and fused
// attention move, and TFLOP/s bars from `./lab bench 06`'s result file. The
// kernels run with the lab's code through its harness
// (harness/06_flash_attention/backend.hpp) on the emulator, with a
// Recording around each call: the student's code (or the reference,
// whichever this build grades) exactly as the tests run it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "attention_walk.hpp"
#include "cudalab/emu/recorder.hpp"
#include "harness/06_flash_attention/backend.hpp"
#include "model/emu_run.hpp"
#include "model/lab_source.hpp"
#include "row_statistics.hpp"

namespace cudalab::viewer {
namespace {

namespace harness = ::lab06::harness;

enum Lab06Version : std::size_t { kFused, kFusedCausal, kNaive, kNaiveCausal };
enum Lab06Parameter : std::size_t { kN, kD, kRow };

// The emulator traces every access; the naive version's n x n scores make
// it the slow one (a second at n = 200).
constexpr std::int64_t kMaxN = 512;

struct Bytes {
  std::uint64_t loads = 0, stores = 0;
};

// What the traced launches' global loads and stores asked for, as the
// harness's Observation::loads/stores bytes count them.
Bytes traced_bytes(const emu::Recording& recording) {
  Bytes b;
  for (const emu::LaunchRecord& launch : recording.launches()) {
    b.loads += launch.coalescing.loads.bytes_requested;
    b.stores += launch.coalescing.stores.bytes_requested;
  }
  return b;
}

// o = softmax(scale q k^T [causal]) v in double precision, for the title's
// check of the run.
double largest_error(const harness::Attention& s, const std::vector<float>& q,
                     const std::vector<float>& k, const std::vector<float>& v,
                     const std::vector<float>& o) {
  double worst = 0;
  std::vector<double> p(static_cast<std::size_t>(s.n));
  for (int i = 0; i < s.n; ++i) {
    const int keys = s.causal ? i + 1 : s.n;
    double max = -INFINITY, sum = 0;
    for (int j = 0; j < keys; ++j) {
      double dot = 0;
      for (int c = 0; c < s.d; ++c)
        dot += double(q[std::size_t(i) * s.d + c]) * k[std::size_t(j) * s.d + c];
      p[j] = s.scale * dot;
      max = std::max(max, p[j]);
    }
    for (int j = 0; j < keys; ++j) sum += p[j] = std::exp(p[j] - max);
    for (int c = 0; c < s.d; ++c) {
      double want = 0;
      for (int j = 0; j < keys; ++j) want += p[j] * v[std::size_t(j) * s.d + c];
      const double got = o[std::size_t(i) * s.d + c];
      worst = std::isnan(got) ? INFINITY : std::max(worst, std::abs(got - want / sum));
    }
  }
  return worst;
}

// Whether some program loaded a tile of K or V (the fused forward's walk).
bool loads_keys(const TileWalk& walk) {
  for (const ProgramWalk& p : walk.programs)
    for (const auto& step : p.steps)
      for (const TileTouch& t : step)
        if (t.grid == lab06::kKTransposed || t.grid == lab06::kV) return true;
  return false;
}

std::string join(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "\n" + b;
}

class Lab06Source final : public LabSource {
 public:
  std::string title() const override { return "06 flash attention"; }
  std::string code_origin() const override {
    return std::string(CUDALAB_VIEWER_GRADED) == "labs"
               ? "labs/06_flash_attention (your code)"
               : "solutions/06_flash_attention (reference)";
  }
  std::vector<Version> versions() const override {
    return {
        {"fused forward",
         "ex3: one block per Br queries, walking every tile of K and V",
         false,
         {View::kTiles, View::kTraffic}},
        {"fused forward (causal)",
         "ex4: tiles above the diagonal skipped, not loaded",
         false,
         {View::kTiles, View::kTraffic}},
        {"naive (three kernels)",
         "ex1: the n x n scores through global memory (bytes only)",
         false,
         {View::kTraffic}},
        {"naive (causal)", "ex1 with the mask (bytes only)", false, {View::kTraffic}},
    };
  }
  std::vector<View> views() const override { return views_in_descriptor("06"); }
  std::vector<Parameter> parameters() const override {
    return {{"n", "n (sequence length)", 1, kMaxN, 200},
            {"d", "d (head dim: 32, 64, 128)", 32, 128, 64},
            {"row", "row (query whose m, l show)", 0, kMaxN - 1, 100}};
  }
  std::vector<Preset> presets() const override {
    return {{"n 200, d 64", {200, 64, 100}},
            {"n 100, d 32 (n < 2 Br)", {100, 32, 70}},
            {"n 257, d 128", {257, 128, 200}}};
  }
  bool has_launch_config() const override { return false; }
  std::string tab_title(View view) const override {
    if (view == View::kTraffic) return "Bytes moved";
    if (view == View::kBars) return "TFLOP/s";
    return {};
  }
  std::string note(View view) const override {
    if (view == View::kTiles)
      return "Rows of S are the programs' blocks of Br queries, columns the tiles of Bc keys "
             "(entry::flash_tile). A program's walk comes from its traced loads of K and V: "
             "step j is key tile j, so a tile it loads is framed in that step's colour and "
             "counted, and causal tiles above the diagonal stay grey because nothing loaded "
             "them. Under the grids: m and l of the chosen row after each key tile, computed "
             "on the host from the same q and k (m only rises; l is rescaled by "
             "exp(m_old - m_new) when it does).";
    if (view == View::kTraffic)
      return "Bytes the traced global loads and stores asked for (fp32, one head). Naive: "
             "Theta(N d + N^2); the green tick is the least a three-kernel version moves, "
             "4 (4 n^2 + 4 n d) bytes (S written, read and written by the softmax, read), and "
             "this lab's simple kernels request far more (every score reads a row of q and k; "
             "on a GPU the caches catch most). Fused: q read once, K and V once per block of "
             "Br queries, o and L written once; no n x n buffer.";
    if (view == View::kBars)
      return "From `./lab bench 06`: TFLOP/s = 4 B H N^2 d / time (halved for causal), the "
             "lab's kernels against PyTorch's naive attention and SDPA backends in the same run.";
    return {};
  }

  RunOutcome run(const RunRequest& request) const override {
    if (auto problem = validate(*this, request)) return RunOutcome::failure(*problem);
    const std::int64_t d = request.values[kD];
    if (d != 32 && d != 64 && d != 128)
      return RunOutcome::failure("d = " + std::to_string(d) +
                                 ": the lab's kernels take 32, 64 "
                                 "or 128");
    const auto start = std::chrono::steady_clock::now();
    RunOutcome out;
    try {
      out = attention(request);
    } catch (const std::exception& e) {
      out = RunOutcome::failure(e.what());
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  static emu::ScopedOptions quiet_options(std::size_t kept_accesses) {
    emu::Options quiet = emu::options();
    quiet.print_reports = false;  // shown in the window instead
    quiet.max_recorded_accesses = kept_accesses;
    return emu::ScopedOptions(quiet);
  }

  RunOutcome attention(const RunRequest& request) const {
    const auto& values = request.values;
    const bool causal = request.version == kFusedCausal || request.version == kNaiveCausal;
    const bool fused = request.version == kFused || request.version == kFusedCausal;
    const int exercise = causal ? 4 : 3;  // the fused forward's
    harness::Attention shape;
    shape.heads = 1;
    shape.n = static_cast<int>(values[kN]);
    shape.d = static_cast<int>(values[kD]);
    shape.scale = 1.0f / std::sqrt(float(shape.d));
    shape.causal = causal;
    std::mt19937 random(6);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> q(shape.values()), k(shape.values()), v(shape.values());
    for (auto* x : {&q, &k, &v})
      for (float& e : *x) e = uniform(random);
    auto backend = harness::make_emulator_backend();
    const harness::FlashTile tile = backend->call(harness::entry::flash_tile, shape.d);

    RunOutcome out;
    // The fused forward: its trace gives the walk and its bytes.
    Bytes fused_bytes;
    std::vector<float> fused_out(shape.values() + shape.rows(), NAN);
    {
      emu::ScopedOptions scoped = quiet_options(std::size_t{1} << 26);
      emu::Recording recording;
      const harness::Observation seen =
          backend->call(harness::entry::flash_forward, shape, q, k, v, fused_out);
      out.error = run_problems(seen, recording);
      fused_bytes = traced_bytes(recording);
      if (fused) {
        if (recording.launches().empty()) {
          out.error = join(out.error, "the lab code launched no kernel");
          out.unfinished[View::kTiles] = not_done_yet(
              *this, exercise, seen.failed() ? seen.error : "the lab code launched no kernel");
        } else {
          const emu::LaunchRecord& launch = recording.last();
          const lab06::AttentionShape walk_shape{std::uint64_t(shape.n), std::uint64_t(shape.d),
                                                 std::uint32_t(tile.query_rows),
                                                 std::uint32_t(tile.key_rows)};
          const auto buffers =
              lab06::find_attention_buffers(launch, seen.output_address, walk_shape);
          if (!buffers) {
            out.error = join(out.error, "the kernel read no buffer of q's size: nothing to walk");
            out.unfinished[View::kTiles] = not_done_yet(
                *this, exercise, "the kernel read nothing of q, k or v: nothing to walk");
          } else {
            TileWalk walk = lab06::attention_walk(launch, *buffers, walk_shape);
            if (!loads_keys(walk))  // a skeleton's forward loads its block of q at most
              out.unfinished[View::kTiles] = not_done_yet(
                  *this, exercise,
                  "the kernel loaded no tile of K or V (the walk shows what it did load)");
            describe(walk, shape, tile, q, k, v, fused_out, static_cast<int>(values[kRow]));
            if (launch.accesses_truncated)
              out.error = join(out.error,
                               "the trace was cut short: later programs' tiles are "
                               "missing");
            out.tiles = std::move(walk);
          }
        }
      }
    }
    // The naive version: only what it moved (its trace is n^2 d accesses;
    // the analyses see them all without keeping them).
    Bytes naive_bytes;
    {
      std::vector<float> naive_o(shape.values(), NAN);
      emu::ScopedOptions scoped = quiet_options(0);
      emu::Recording recording;
      const harness::Observation seen =
          backend->call(harness::entry::naive_attention, shape, q, k, v,
                        harness::Temp<float>{shape.scores()}, naive_o);
      if (!fused) out.error = join(out.error, run_problems(seen, recording));
      naive_bytes = traced_bytes(recording);
    }
    out.traffic = bytes_chart(shape, tile, naive_bytes, fused_bytes);
    std::string traffic_todo;
    if (naive_bytes.loads + naive_bytes.stores == 0)
      traffic_todo = not_done_yet(*this, 1, "the naive kernels moved no bytes");
    if (fused && fused_bytes.loads + fused_bytes.stores == 0)
      traffic_todo =
          join(traffic_todo, not_done_yet(*this, exercise, "the fused kernel moved no bytes"));
    if (!traffic_todo.empty()) out.unfinished[View::kTraffic] = traffic_todo;
    return out;
  }

  void describe(TileWalk& walk, const harness::Attention& shape, const harness::FlashTile& tile,
                const std::vector<float>& q, const std::vector<float>& k,
                const std::vector<float>& v, const std::vector<float>& fused_out, int row) const {
    const double error = largest_error(shape, q, k, v, fused_out);
    char checked[96];
    std::snprintf(checked, sizeof checked, "largest |o - reference| = %.2g%s", error,
                  error < 1e-4 ? "" : "  WRONG");
    walk.title = std::string(shape.causal ? "fused forward (causal)" : "fused forward") +
                 ": n = " + std::to_string(shape.n) + ", d = " + std::to_string(shape.d) +
                 ", Br = " + std::to_string(tile.query_rows) +
                 " queries per program, Bc = " + std::to_string(tile.key_rows) +
                 " keys per tile, " + std::to_string(walk.programs.size()) + " programs; " +
                 checked + "  [" + code_origin() + "]";
    if (!shape.causal)
      walk.minimum_bytes = (std::uint64_t(tile.query_rows) + 2 * std::uint64_t(shape.n)) *
                           std::uint64_t(shape.d) * 4;
    row = std::clamp(row, 0, shape.n - 1);
    const auto stats =
        lab06::running_statistics(q.data() + std::size_t(row) * shape.d, k, shape.n, shape.d,
                                  shape.scale, tile.key_rows, shape.causal, row);
    StepSeries m{"m: the row's running max after each key tile", {}};
    StepSeries l{"l: the sum of exp(s - m) so far", {}};
    for (const auto& s : stats) {
      m.values.push_back(s.max);
      l.values.push_back(s.sum);
    }
    walk.step_series_title = "query row " + std::to_string(row) + " (program " +
                             std::to_string(row / tile.query_rows) +
                             "), host double precision from the same q and k:";
    walk.step_series = {std::move(m), std::move(l)};
  }

  static TrafficChart bytes_chart(const harness::Attention& s, const harness::FlashTile& tile,
                                  const Bytes& naive, const Bytes& fused) {
    const double n = s.n, d = s.d;
    // K and V rows each program needs: all n, or causal up to its last query.
    double keys = 0;
    for (int first = 0; first < s.n; first += tile.query_rows)
      keys += s.causal ? std::min(first + tile.query_rows, s.n) : s.n;
    TrafficBar naive_bar{"naive", 0, {{0, naive.loads}, {1, naive.stores}}, {}, {}};
    naive_bar.ideal = 4 * (4 * n * n + 4 * n * d);
    naive_bar.ideal_label = "least for three kernels, 4 (4 n^2 + 4 n d)";
    TrafficBar fused_bar{"fused", 0, {{0, fused.loads}, {1, fused.stores}}, {}, {}};
    fused_bar.ideal = 4 * (n * d + 2 * d * keys + n * d + n);
    fused_bar.ideal_label = s.causal ? "4 (n d + 2 d sum_b min(n, (b+1) Br) + n d + n)"
                                     : "4 (n d + 2 n d ceil(n / Br) + n d + n)";
    const std::string title = "bytes moved, naive vs fused: n = " + std::to_string(s.n) +
                              ", d = " + std::to_string(s.d) + ", fp32, one head" +
                              (s.causal ? ", causal" : "");
    return named_bar_chart(title, {"loads", "stores"}, "traced:", {naive_bar, fused_bar});
  }
};

}  // namespace

std::unique_ptr<LabSource> make_lab_06_source() { return std::make_unique<Lab06Source>(); }

}  // namespace cudalab::viewer
