#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/harness/bench.hpp"

namespace cudalab::harness {

// The copy anchor's size: past any L2, as the largest lab inputs.
constexpr std::size_t kCopyAnchorBytes = std::size_t{1} << 30;

struct BenchRun::FlushBuffer {
  explicit FlushBuffer(std::size_t bytes) : buffer(bytes) {}
  cudalab::DeviceBuffer<unsigned char> buffer;
};

BenchRun::BenchRun(std::string tool, std::string lab, int argc, const char* const* argv,
                   int repeats, std::string pytorch_json)
    : result_(new_result(std::move(tool), std::move(lab), argc, argv)),
      repeats_(repeats),
      pytorch_json_(std::move(pytorch_json)) {
  result_.gpu = cudalab::query_device();
  std::cout << result_.tool << " on " << result_.gpu->name << "\n";
  // The anchor first, so that every bandwidth figure gets its fraction.
  const cudalab::BandwidthMeasurement copy = cudalab::measure_copy_bandwidth(kCopyAnchorBytes);
  result_.add_anchor(cudalab::copy_anchor(copy));
  std::printf("device-to-device copy (1 GiB, read + write): %.0f GB/s\n", copy.gb_per_s());
  flush_ = std::make_unique<FlushBuffer>(2 * std::max<std::size_t>(result_.gpu->l2_bytes, 1));
}

BenchRun::~BenchRun() = default;

double BenchRun::median_ms_cold_l2(const std::function<void()>& work) {
  work();  // warm-up: first-launch costs, page mapping
  CUDA_CHECK_LAUNCH();
  cudalab::EventTimer timer;
  std::vector<double> samples;
  for (int r = 0; r < repeats_; ++r) {
    flush_->buffer.fill_bytes(r & 0xff);
    timer.start();
    work();
    timer.stop();
    CUDA_CHECK_LAUNCH();
    samples.push_back(timer.elapsed_ms());
  }
  return cudalab::median(std::move(samples));
}

std::string BenchRun::same_size_copy_anchor(std::uint64_t bytes) {
  const std::string name = "copy_" + std::to_string(bytes) + "_bytes";
  if (result_.find_anchor(name) != nullptr) return name;
  cudalab::DeviceBuffer<unsigned char> source(bytes);
  cudalab::DeviceBuffer<unsigned char> destination(bytes);
  source.fill_bytes(1);  // touch every page before timing
  destination.fill_bytes(0);
  const double ms = median_ms_cold_l2([&] {
    CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice));
  });
  Anchor anchor;
  anchor.name = name;
  anchor.bytes = 2 * bytes;  // read + written, as the kernels count theirs
  anchor.time_ms = ms;
  anchor.value = static_cast<double>(*anchor.bytes) / ms / 1e6;
  anchor.unit = "GB/s";
  anchor.source = "cudaMemcpyAsync device to device of " + std::to_string(bytes) +
                  " bytes, L2 flushed before each run, median of " + std::to_string(repeats_) +
                  ", bytes read + written";
  result_.add_anchor(anchor);
  return name;
}

void BenchRun::add_note(const std::string& note) {
  std::cout << "note: " << note << "\n";
  result_.notes.push_back(note);
}

const Figure& BenchRun::add_figure(std::string name, std::string version,
                                   std::vector<std::int64_t> shape, std::uint64_t bytes, double ms,
                                   double value, std::string unit, const std::string& anchor) {
  Figure figure;
  figure.name = std::move(name);
  figure.version = std::move(version);
  figure.shape = std::move(shape);
  figure.bytes = bytes;
  figure.time_ms = ms;
  figure.value = value;
  figure.unit = std::move(unit);
  result_.add_figure(figure, anchor);
  return result_.figures.back();
}

const Figure& BenchRun::add_bandwidth(std::string name, std::string version,
                                      std::vector<std::int64_t> shape, std::uint64_t bytes,
                                      double ms, const std::string& anchor) {
  return add_figure(std::move(name), std::move(version), std::move(shape), bytes, ms,
                    static_cast<double>(bytes) / ms / 1e6, "GB/s", anchor);
}

const Figure& BenchRun::add_throughput(std::string name, std::string version,
                                       std::vector<std::int64_t> shape, std::uint64_t flops,
                                       std::uint64_t bytes, double ms, const std::string& anchor,
                                       std::optional<ErrorFigures> errors) {
  Figure figure;
  figure.name = std::move(name);
  figure.version = std::move(version);
  figure.shape = std::move(shape);
  figure.bytes = bytes;
  figure.flops = flops;
  figure.time_ms = ms;
  figure.value = static_cast<double>(flops) / ms / 1e9;  // flop/ms -> TFLOP/s
  figure.unit = "TFLOP/s";
  figure.errors = std::move(errors);
  result_.add_figure(figure, result_.find_anchor(anchor) != nullptr ? anchor : "");
  return result_.figures.back();
}

std::string BenchRun::add_throughput_anchor(std::string name, std::uint64_t flops, double ms,
                                            std::string source) {
  Anchor anchor;
  anchor.name = std::move(name);
  anchor.value = static_cast<double>(flops) / ms / 1e9;  // flop/ms -> TFLOP/s
  anchor.unit = "TFLOP/s";
  anchor.time_ms = ms;
  anchor.source = std::move(source);
  result_.add_anchor(anchor);
  return result_.anchors.back().name;
}

std::string BenchRun::pytorch_anchor(const std::string& version,
                                     const std::vector<std::int64_t>& shape) {
  for (const Figure& f : result_.figures) {
    if (f.version != version || f.shape != shape || !f.flops) continue;
    return add_throughput_anchor(
        "pytorch:" + version, *f.flops, f.time_ms,
        "bench_pytorch.py in the same run, median of " + std::to_string(repeats_) + ", L2 flushed");
  }
  return "";
}

bool passes_check(const std::string& version, const std::string& shape,
                  const std::function<std::string()>& check) {
  std::string wrong;
  try {
    wrong = check();
  } catch (const std::exception& e) {
    wrong = std::string("the check threw: ") + e.what();
  }
  if (wrong.empty()) return true;
  std::printf("%-34s WRONG RESULT on %s, not timed: %s\n", version.c_str(), shape.c_str(),
              wrong.c_str());
  return false;
}

std::string what_is_wrong(const Observation& call, const Comparison& result) {
  if (call.failed()) return "it failed with " + call.error_type + ": " + call.error;
  if (call.guard_elements_changed > 0) {
    return "it wrote " + std::to_string(call.guard_elements_changed) +
           " elements outside its output";
  }
  if (result.ok) return "";
  const std::string text = result.to_string();  // its first line: counts, rule, worst errors
  return text.substr(0, text.find('\n'));
}

void BenchRun::print_header(const std::string& title, const std::string& shape_heading,
                            const std::string& unit, bool with_errors) {
  table_with_errors_ = with_errors;
  std::printf("\n%s\n%-34s %18s %10s %10s %10s%s\n", title.c_str(), "version",
              shape_heading.c_str(), "ms", unit.c_str(), "of anchor",
              with_errors ? "      error" : "");
}

void BenchRun::print_row(const Figure& f) const {
  char fraction[32] = "-";
  if (f.fraction_of) std::snprintf(fraction, sizeof fraction, "%.2f", f.fraction_of->value);
  char error[32] = "-";
  if (f.errors && f.errors->normwise) {
    std::snprintf(error, sizeof error, "%.2e", *f.errors->normwise);
  }
  std::string shape;
  for (const auto d : f.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  std::printf("%-34s %18s %10.3f %10.1f %10s", f.version.c_str(), shape.c_str(), f.time_ms, f.value,
              fraction);
  if (table_with_errors_) std::printf(" %10s", error);
  std::printf("\n");
}

void BenchRun::print_pytorch_rows(const std::string& title, const std::string& shape_heading,
                                  const std::string& unit, bool with_errors) {
  bool printed = false;
  for (const Figure& f : result_.figures) {
    if (f.version.rfind("torch_", 0) != 0) continue;
    if (!printed) print_header(title, shape_heading, unit, with_errors);
    printed = true;
    print_row(f);
  }
}

namespace {

// The figures bench_pytorch.py wrote to `path` (--pytorch-json).
nlohmann::json read_pytorch_figures(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read PyTorch figures from " + path);
  return nlohmann::json::parse(file);
}

}  // namespace

std::optional<nlohmann::json> BenchRun::pytorch_results(const std::string& what) {
  if (pytorch_json_.empty()) return std::nullopt;
  std::ifstream file(pytorch_json_);
  nlohmann::json json = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  std::string why_not;
  if (json.is_discarded()) {
    why_not = pytorch_json_ + " is not JSON";
  } else if (json.contains("error")) {
    why_not = json.at("error").get<std::string>();
  }
  if (why_not.empty()) return json;
  add_note("no " + what + ": " + why_not);
  return std::nullopt;
}

void BenchRun::merge_pytorch_throughput(const std::string& name) {
  if (pytorch_json_.empty()) return;
  const nlohmann::json json = read_pytorch_figures(pytorch_json_);
  for (const auto& figure : json.at("figures")) {
    if (!figure.contains("flops")) continue;
    add_throughput(name, figure.at("version").get<std::string>(),
                   figure.at("shape").get<std::vector<std::int64_t>>(),
                   figure.at("flops").get<std::uint64_t>(), figure.at("bytes").get<std::uint64_t>(),
                   figure.at("time_ms").get<double>());
  }
}

namespace {

using AnchorForShape = std::function<std::string(const std::vector<std::int64_t>&)>;

// Each {"shape", "bytes", "time_ms"} of bench_pytorch.py's `figures` as a
// bandwidth figure of `name`/`version`, against the anchor `anchor_for` names.
void add_pytorch_bandwidths(BenchRun& run, const nlohmann::json& figures, const std::string& name,
                            const std::string& version, const AnchorForShape& anchor_for) {
  for (const auto& figure : figures) {
    const auto shape = figure.at("shape").get<std::vector<std::int64_t>>();
    run.add_bandwidth(name, version, shape, figure.at("bytes").get<std::uint64_t>(),
                      figure.at("time_ms").get<double>(), anchor_for ? anchor_for(shape) : "");
  }
}

}  // namespace

void BenchRun::merge_pytorch(const std::string& name, const std::string& version,
                             const std::string& anchor_name, const std::string& job,
                             const AnchorForShape& anchor_for) {
  if (pytorch_json_.empty()) return;
  const nlohmann::json json = read_pytorch_figures(pytorch_json_);
  const nlohmann::json& figures = json.at("figures");
  add_pytorch_bandwidths(*this, figures, name, version, anchor_for);
  const auto largest =
      std::max_element(figures.begin(), figures.end(),
                       [](const auto& a, const auto& b) { return a.at("bytes") < b.at("bytes"); });
  if (largest == figures.end()) return;
  Anchor anchor;
  anchor.name = anchor_name;
  anchor.bytes = largest->at("bytes").get<std::uint64_t>();
  anchor.time_ms = largest->at("time_ms").get<double>();
  anchor.value = static_cast<double>(*anchor.bytes) / *anchor.time_ms / 1e6;
  anchor.unit = "GB/s";
  anchor.source = "torch " + json.value("torch_version", std::string("?")) + ": " + job +
                  ", the largest shape, median of " + std::to_string(json.value("repeats", 0));
  result_.add_anchor(anchor);
}

void BenchRun::merge_pytorch_section(const std::string& key, const std::string& name,
                                     const std::string& version, const AnchorForShape& anchor_for) {
  if (pytorch_json_.empty()) return;
  const nlohmann::json json = read_pytorch_figures(pytorch_json_);
  if (!json.contains(key)) return;
  const nlohmann::json& section = json.at(key);
  if (section.contains("error")) {
    add_note(version + " was not timed: " + section.at("error").get<std::string>());
    return;
  }
  add_pytorch_bandwidths(*this, section.at("figures"), name, version, anchor_for);
}

void BenchRun::merge_pytorch_durations() {
  if (pytorch_json_.empty()) return;
  const nlohmann::json json = read_pytorch_figures(pytorch_json_);
  for (const auto& f : json.at("figures")) {
    const double ms = f.at("time_ms").get<double>();
    add_figure(f.at("name").get<std::string>(), f.at("version").get<std::string>(),
               f.at("shape").get<std::vector<std::int64_t>>(), f.at("bytes").get<std::uint64_t>(),
               ms, ms, "ms");
  }
  for (const auto& timeline : json.value("timelines", nlohmann::json::array())) {
    result_.add_timeline(timeline_from_json(timeline, pytorch_json_));
  }
}

int bench_main(int argc, char** argv, const std::string& tool, const std::string& lab,
               const std::function<void(BenchRun&)>& body) {
  CLI::App app{tool + ": lab " + lab + "'s kernels timed on the GPU against anchors"};
  std::string out_path, pytorch_json, no_pytorch;
  int repeats = 20;
  int ranks = 0;
  app.add_option("--out", out_path, "the result file to write")->required();
  auto* with_pytorch =
      app.add_option("--pytorch-json", pytorch_json,
                     "PyTorch's figures from the lab's bench_pytorch.py, merged as anchors");
  app.add_option("--no-pytorch", no_pytorch,
                 "why there are no PyTorch figures (said in the result file)")
      ->excludes(with_pytorch);
  app.add_option("--repeats", repeats, "timed runs per figure (the median is kept)")
      ->check(CLI::PositiveNumber);
  app.add_option("--ranks", ranks, "GPUs a multi-GPU benchmark uses (default: every visible one)")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (!cudalab::has_gpu()) {
      std::cerr << tool << ": needs an NVIDIA GPU (" << cudalab::no_gpu_reason()
                << "); run it on a GPU server and view the result file locally\n";
      return 1;
    }
    BenchRun run(tool, lab, argc, argv, repeats, pytorch_json);
    run.set_ranks(ranks);
    if (!no_pytorch.empty()) run.add_note("no PyTorch anchor: " + no_pytorch);
    body(run);
    cudalab::write_result(out_path, run.result());
    std::cout << "result written to " << out_path << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cudalab::harness
