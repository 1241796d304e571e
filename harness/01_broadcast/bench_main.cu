// lab01_bench: `./lab bench 01`. Times each version of a (x, y) += b (y) on
// the GPU, from L2-resident sizes to 1 GiB, next to the device-to-device copy
// measured in the same run, and writes a cudalab result file.
//
//   lab01_bench --out FILE [--pytorch-json FILE] [--repeats N]
//
// --pytorch-json merges the figures bench_pytorch.py measured for
// a.add_(b) on the same shapes (the ./lab driver runs the script first).
//
// Bandwidth = bytes / time, with bytes = 4 * (x*y + y + x*y): read a, read b,
// write a (b is read once from DRAM; its re-reads hit the caches). The copy
// anchor counts its read and its write the same way. The L2 is flushed before
// every timed run, and the time is the median of the repeats (CUDA events).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/check.hpp"
#include "cudalab/compare.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/device_info.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/random.hpp"
#include "cudalab/results.hpp"
#include "reference.hpp"

namespace {

using lab01::harness::DeviceFunctions;

// a is kRows[k] x kColumns floats; b is kColumns floats. From 8 MiB (inside
// an H100/H200's 50 MB L2) to 1 GiB. bench_pytorch.py uses the same shapes.
constexpr int kColumns = 4096;
constexpr int kRows[] = {512, 2048, 8192, 16384, 65536};

struct Version {
  const char* name;  // the figure's version
  void (*run)(float* a, const float* b, int x, int y, int block_size);
  int block_size;
};

struct Arguments {
  std::string out_path;
  std::string pytorch_json;
  int repeats = 20;
};

Arguments parse_arguments(CLI::App& app, int argc, char** argv) {
  Arguments arguments;
  app.add_option("--out", arguments.out_path, "the result file to write")->required();
  app.add_option("--pytorch-json", arguments.pytorch_json,
                 "PyTorch's figures from bench_pytorch.py, merged as anchors");
  app.add_option("--repeats", arguments.repeats, "timed runs per figure (the median is kept)")
      ->check(CLI::PositiveNumber);
  app.parse(argc, argv);
  return arguments;
}

std::uint64_t bytes_moved(int x, int y) {
  const auto elements = static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y);
  return 4 * (elements + static_cast<std::uint64_t>(y) + elements);  // read a, read b, write a
}

// Runs `version` once on a small input and compares with the CPU: a wrong
// kernel is reported, not timed.
bool validate(const Version& version, cudalab::Random& rng) {
  const int x = 257;
  const int y = 1031;
  std::vector<float> a = rng.uniform(static_cast<std::size_t>(x) * y, -1.0f, 1.0f);
  const std::vector<float> b = lab01::harness::nonzero_values(rng, y);
  const std::vector<float> expected = lab01::harness::broadcast_sum_reference(a, b, x, y);
  cudalab::DeviceBuffer<float> a_device(a);
  cudalab::DeviceBuffer<float> b_device(b);
  version.run(a_device.data(), b_device.data(), x, y, version.block_size);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> actual = a_device.copy_to_host();
  const auto comparison = cudalab::compare(actual, expected, {});
  if (!comparison.ok) {
    std::cout << version.name << ": WRONG RESULT on a (" << x << ", " << y << "), not timed\n"
              << comparison.to_string() << "\n";
  }
  return comparison.ok;
}

// Median time of `repeats` runs of `work`, each after the L2 was flushed by
// writing a buffer twice its size.
template <class Work>
double median_ms_with_cold_l2(Work&& work, cudalab::DeviceBuffer<unsigned char>& flush,
                              int repeats) {
  work();  // warm-up: first-launch costs, page mapping
  CUDA_CHECK_LAUNCH();
  cudalab::EventTimer timer;
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    flush.fill_bytes(r & 0xff);
    timer.start();
    work();
    timer.stop();
    CUDA_CHECK_LAUNCH();
    samples.push_back(timer.elapsed_ms());
  }
  return cudalab::median(std::move(samples));
}

// Adds bench_pytorch.py's figures (same shapes) as version "pytorch_add_".
void merge_pytorch(const std::string& path, cudalab::ResultFile& result) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read PyTorch figures from " + path);
  const nlohmann::json json = nlohmann::json::parse(file);
  const nlohmann::json* largest = nullptr;
  for (const auto& figure : json.at("figures")) {
    cudalab::Figure merged;
    merged.name = "broadcast_sum";
    merged.version = "pytorch_add_";
    merged.shape = figure.at("shape").get<std::vector<std::int64_t>>();
    merged.bytes = figure.at("bytes").get<std::uint64_t>();
    merged.time_ms = figure.at("time_ms").get<double>();
    merged.value = static_cast<double>(merged.bytes) / merged.time_ms / 1e6;
    merged.unit = "GB/s";
    result.add_figure(merged);
    if (largest == nullptr || figure.at("bytes") > largest->at("bytes")) largest = &figure;
  }
  if (largest != nullptr) {
    cudalab::Anchor anchor;
    anchor.name = "pytorch:broadcast_add";
    anchor.bytes = largest->at("bytes").get<std::uint64_t>();
    anchor.time_ms = largest->at("time_ms").get<double>();
    anchor.value = static_cast<double>(*anchor.bytes) / *anchor.time_ms / 1e6;
    anchor.unit = "GB/s";
    anchor.source = "torch " + json.value("torch_version", std::string("?")) +
                    ": a.add_(b) with b broadcast over rows, the largest shape, median of " +
                    std::to_string(json.value("repeats", 0)) + " (bench_pytorch.py)";
    result.add_anchor(anchor);
  }
}

int run(const Arguments& arguments, int argc, char** argv) {
  if (!cudalab::has_gpu()) {
    std::cerr << "lab01_bench: needs an NVIDIA GPU (" << cudalab::no_gpu_reason()
              << "); run it on a GPU server and view the result file locally\n";
    return 1;
  }

  cudalab::ResultFile result = cudalab::new_result("lab01_bench", "01_broadcast", argc, argv);
  result.gpu = cudalab::query_device();
  std::cout << "lab01_bench on " << result.gpu->name << "\n";

  // The anchor first, so every GB/s figure gets its fraction of the copy.
  const cudalab::BandwidthMeasurement copy = cudalab::measure_copy_bandwidth(std::size_t{1} << 30);
  result.add_anchor(cudalab::copy_anchor(copy));
  std::printf("device-to-device copy (1 GiB, read + write): %.0f GB/s\n", copy.gb_per_s());

  const DeviceFunctions lab = lab01::harness::gpu_device_functions();
  const Version versions[] = {
      {"v1_lecture_fixed", lab.broadcast_sum, 512},
      {"v2_coalesced", lab.broadcast_sum_coalesced, 256},
      {"v3_nd_general", lab.broadcast_add_in_place, 256},
      {"v4_vec4", lab.broadcast_sum_vec4, 256},
  };

  cudalab::Random rng = cudalab::Random::fresh();
  cudalab::DeviceBuffer<unsigned char> flush(2 * std::max<std::size_t>(result.gpu->l2_bytes, 1));
  const int max_rows = *std::max_element(std::begin(kRows), std::end(kRows));
  cudalab::DeviceBuffer<float> a(static_cast<std::size_t>(max_rows) * kColumns);
  a.fill_bytes(0);
  cudalab::DeviceBuffer<float> b(rng.uniform(kColumns, -1.0f, 1.0f));

  std::printf("%-18s %14s %10s %10s %8s\n", "version", "a (x, y)", "ms", "GB/s", "of copy");
  for (const Version& version : versions) {
    if (!validate(version, rng)) continue;
    for (const int rows : kRows) {
      const double ms = median_ms_with_cold_l2(
          [&] { version.run(a.data(), b.data(), rows, kColumns, version.block_size); }, flush,
          arguments.repeats);
      cudalab::Figure figure;
      figure.name = "broadcast_sum";
      figure.version = version.name;
      figure.shape = {rows, kColumns};
      figure.bytes = bytes_moved(rows, kColumns);
      figure.time_ms = ms;
      figure.value = static_cast<double>(figure.bytes) / ms / 1e6;
      figure.unit = "GB/s";
      result.add_figure(figure);
      const auto& added = result.figures.back();
      std::printf("%-18s %6d x %5d %10.4f %10.0f %7.0f%%\n", version.name, rows, kColumns, ms,
                  added.value, 100 * (added.fraction_of ? added.fraction_of->value : 0));
    }
  }

  if (!arguments.pytorch_json.empty()) merge_pytorch(arguments.pytorch_json, result);
  cudalab::write_result(arguments.out_path, result);
  std::cout << "result written to " << arguments.out_path << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lab01_bench: each lab 01 version's bandwidth against the copy bandwidth"};
  Arguments arguments;
  try {
    arguments = parse_arguments(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help, or a bad argument
  }
  try {
    return run(arguments, argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "lab01_bench: " << e.what() << "\n";
    return 2;
  }
}
