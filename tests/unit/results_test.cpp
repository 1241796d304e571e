// Result files: written by benchmarks, read by the viewer. The writer writes
// cudalab.result/2; the reader converts version 1 files and must reject
// anything that is not a complete, consistent result, naming the field.
#include "cudalab/results.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>

namespace {

cudalab::DeviceFacts h200(int index) {
  cudalab::DeviceFacts gpu;
  gpu.index = index;
  gpu.name = "NVIDIA H200";
  gpu.compute_capability_major = 9;
  gpu.compute_capability_minor = 0;
  gpu.sm_count = 132;
  gpu.l2_bytes = 60 * 1024 * 1024;
  gpu.global_memory_bytes = 150ull << 30;
  gpu.clock_khz = 1980000;
  gpu.memory_clock_khz = 3201000;
  gpu.memory_bus_bits = 6144;
  gpu.driver_version = 13000;
  gpu.runtime_version = 13000;
  return gpu;
}

// A single-GPU run with every kind of figure: bandwidth against the copy,
// TFLOP/s against an anchor named by the caller, errors, and a timeline.
cudalab::ResultFile example_result() {
  const char* argv[] = {"lab01_bench", "--size", "16384"};
  cudalab::ResultFile result = cudalab::new_result("lab01_bench", "01_broadcast", 3, argv);
  result.gpu = h200(0);
  result.add_anchor(cudalab::copy_anchor({.bytes_moved = 2ull << 30, .time_ms = 0.5}));
  result.add_anchor({.name = "pytorch:broadcast_add",
                     .value = 2820,
                     .unit = "GB/s",
                     .source = "torch 2.9, a += b, 16384 x 16384 fp32"});
  result.add_anchor({.name = "cublas_tf32",
                     .value = 380,
                     .unit = "TFLOP/s",
                     .source = "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32, median of 20"});
  result.add_figure({.name = "broadcast_sum",
                     .version = "v3_coalesced",
                     .shape = {16384, 16384},
                     .bytes = 3ull * 16384 * 16384 * 4,
                     .time_ms = 0.9,
                     .value = 3579.1,
                     .unit = "GB/s"});
  result.add_figure({.name = "sgemm",
                     .version = "v2_tiled_tf32",
                     .shape = {8192, 8192, 8192},
                     .bytes = 3ull * 8192 * 8192 * 4,
                     .flops = 2ull * 8192 * 8192 * 8192,
                     .time_ms = 3.2,
                     .value = 343.6,
                     .unit = "TFLOP/s",
                     .errors = {{.max_abs = 0.031, .max_rel = 0.0125, .normwise = 2.1e-3}}},
                    "cublas_tf32");
  result.add_timeline({.name = "2 streams",
                       .rows = {{.name = "stream 1",
                                 .spans = {{.name = "copy in", .end_ms = 1.5, .kind = "copy"},
                                           {.name = "matmul 0", .start_ms = 1.5, .end_ms = 4}}},
                                {.name = "stream 2", .spans = {}}}});
  return result;
}

// Two ranks, each on its own GPU.
cudalab::ResultFile multi_gpu_result() {
  const char* argv[] = {"lab04_bench"};
  cudalab::ResultFile result = cudalab::new_result("lab04_bench", "04_nccl", 1, argv);
  result.gpu = h200(0);
  result.gpus = {h200(0), h200(1)};
  result.ranks = 2;
  result.add_anchor({.name = "nccl:all_reduce",
                     .value = 331,
                     .unit = "GB/s busbw",
                     .source = "ncclAllReduce, 1 GiB fp32, median of 20"});
  result.add_figure({.name = "all_reduce",
                     .version = "v1_ring",
                     .shape = {1 << 28},
                     .bytes = 1ull << 30,
                     .time_ms = 6.1,
                     .value = 176,
                     .unit = "GB/s busbw"},
                    "nccl:all_reduce");
  result.add_timeline({.name = "all_reduce 1 GiB",
                       .rows = {{.name = "rank 0",
                                 .spans = {{.name = "reduce-scatter",
                                            .start_ms = 0.25,
                                            .end_ms = 3.25,
                                            .kind = "collective"}}},
                                {.name = "rank 1",
                                 .spans = {{.name = "reduce-scatter",
                                            .start_ms = 0.5,
                                            .end_ms = 3.25,
                                            .kind = "collective"}}}}});
  return result;
}

// Lab 03's producer/consumer on the emulator: the consumer on stream 1 was
// ordered after the producer by an event wait (its `after`), and a second
// consumer that was not raced with the producer (both spans name the race).
cudalab::ResultFile streams_result() {
  cudalab::ResultFile result = cudalab::new_result("lab03_view", "03_streams", 0, nullptr);
  const std::string race = "race: copy 'consumer 2' reads what kernel 'producer' writes";
  result.add_timeline(
      {.name = "producer/consumer",
       .rows = {
           {.name = "default stream",
            .spans = {{.name = "producer", .end_ms = 2, .kind = "kernel", .id = 0, .race = race}}},
           {.name = "stream 1",
            .spans = {{.name = "consumer",
                       .start_ms = 2,
                       .end_ms = 3,
                       .kind = "kernel",
                       .id = 1,
                       .after = {0}},
                      {.name = "consumer 2",
                       .start_ms = 0.5,
                       .end_ms = 1,
                       .kind = "copy",
                       .id = 2,
                       .race = race}}}}});
  return result;
}

// A file in the test's own temporary directory, removed afterwards.
class ResultFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("cudalab_results_test_" + std::to_string(::getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::filesystem::path write_text(const std::string& name, const std::string& text) {
    const auto path = directory_ / name;
    std::ofstream(path) << text;
    return path;
  }

  // read_result's error message for `text`, or "" if it was accepted.
  std::string rejection_of(const std::string& text) {
    try {
      cudalab::read_result(write_text("input.json", text));
    } catch (const cudalab::ResultFormatError& error) {
      return error.what();
    }
    return "";
  }

  std::filesystem::path directory_;
};

TEST(Results, NewResultFillsTheRunDescription) {
  const cudalab::ResultFile result = example_result();
  EXPECT_EQ(cudalab::to_json(result)["schema"], "cudalab.result/2");
  EXPECT_EQ(result.tool, "lab01_bench");
  EXPECT_EQ(result.command_line, (std::vector<std::string>{"lab01_bench", "--size", "16384"}));
  EXPECT_TRUE(std::regex_match(result.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << result.date;
  EXPECT_FALSE(result.host.empty());
  EXPECT_FALSE(result.git_revision.empty());
}

// Sets an environment variable for one scope, restoring what was there.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnvironment() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Results, GitRevisionComesFromTheEnvironmentWhenSet) {
  std::string from_git;
  {
    const ScopedEnvironment unset("CUDALAB_GIT_REVISION", nullptr);
    from_git = cudalab::git_revision();
  }
  {
    const ScopedEnvironment revision("CUDALAB_GIT_REVISION", " 1a2b3c4-dirty\n");
    EXPECT_EQ(cudalab::git_revision(), "1a2b3c4-dirty");
    const char* argv[] = {"tool"};
    EXPECT_EQ(cudalab::new_result("tool", "", 1, argv).git_revision, "1a2b3c4-dirty");
  }
  // Empty means not set: git or the configure-time revision answers.
  const ScopedEnvironment empty("CUDALAB_GIT_REVISION", "");
  EXPECT_EQ(cudalab::git_revision(), from_git);
  EXPECT_NE(from_git, "");
}

TEST(Results, BandwidthFiguresGetTheirFractionOfCopy) {
  const cudalab::ResultFile result = example_result();
  const cudalab::Anchor* copy = result.find_anchor(cudalab::kCopyAnchorName);
  ASSERT_NE(copy, nullptr);
  EXPECT_DOUBLE_EQ(copy->value, (2.0 * (1ull << 30)) / 0.5 / 1e6);  // bytes / ms / 1e6 = GB/s
  ASSERT_TRUE(result.figures[0].fraction_of.has_value());
  EXPECT_EQ(result.figures[0].fraction_of->anchor, "copy_bandwidth");
  EXPECT_DOUBLE_EQ(result.figures[0].fraction_of->value, 3579.1 / copy->value);
}

TEST(Results, FiguresGetTheirFractionOfTheAnchorTheCallerNames) {
  const cudalab::ResultFile result = example_result();
  ASSERT_TRUE(result.figures[1].fraction_of.has_value());
  EXPECT_EQ(result.figures[1].fraction_of->anchor, "cublas_tf32");
  EXPECT_DOUBLE_EQ(result.figures[1].fraction_of->value, 343.6 / 380);

  const cudalab::ResultFile multi = multi_gpu_result();
  ASSERT_TRUE(multi.figures[0].fraction_of.has_value());
  EXPECT_EQ(multi.figures[0].fraction_of->anchor, "nccl:all_reduce");
}

TEST(Results, NoFractionWithoutAMatchingAnchor) {
  cudalab::ResultFile result = example_result();
  // A TFLOP/s figure has no default anchor; an absent named anchor (PyTorch
  // not importable) gives none either.
  result.add_figure({.name = "sgemm", .time_ms = 1, .value = 50, .unit = "TFLOP/s"});
  result.add_figure({.name = "sgemm", .time_ms = 1, .value = 50, .unit = "TFLOP/s"},
                    "pytorch:matmul");
  EXPECT_FALSE(result.figures[2].fraction_of.has_value());
  EXPECT_FALSE(result.figures[3].fraction_of.has_value());
  // Naming an anchor of another unit is a mistake in the caller.
  EXPECT_THROW(result.add_figure({.name = "sgemm", .time_ms = 1, .value = 50, .unit = "TFLOP/s"},
                                 cudalab::kCopyAnchorName),
               std::invalid_argument);
}

TEST(Results, AGivenFractionIsKept) {
  cudalab::ResultFile result = example_result();
  result.add_figure({.name = "broadcast_sum",
                     .time_ms = 1,
                     .value = 1000,
                     .unit = "GB/s",
                     .fraction_of = {{.anchor = "pytorch:broadcast_add", .value = 0.35}}});
  EXPECT_EQ(result.figures.back().fraction_of->anchor, "pytorch:broadcast_add");
  EXPECT_DOUBLE_EQ(result.figures.back().fraction_of->value, 0.35);
}

TEST(Results, RejectsNonFiniteFigures) {
  cudalab::ResultFile result = example_result();
  EXPECT_THROW(result.add_figure({.name = "x", .time_ms = std::nan(""), .unit = "GB/s"}),
               std::invalid_argument);
  EXPECT_THROW(result.add_figure({.name = "x", .time_ms = -1, .unit = "GB/s"}),
               std::invalid_argument);
  EXPECT_THROW(result.add_figure({.name = "x", .unit = "ms", .errors = {{.max_rel = INFINITY}}}),
               std::invalid_argument);
  EXPECT_THROW(result.add_figure({.name = "x", .unit = "ms", .errors = {{.max_abs = -1}}}),
               std::invalid_argument);
  EXPECT_THROW(result.add_figure({.name = "x", .unit = "ms", .errors = cudalab::ErrorFigures{}}),
               std::invalid_argument);
  EXPECT_EQ(result.figures.size(), 2u);
}

TEST(Results, RejectsAnchorsThatFiguresCouldNotName) {
  cudalab::ResultFile result = example_result();
  EXPECT_THROW(result.add_anchor(cudalab::copy_anchor({.bytes_moved = 1 << 20, .time_ms = 1})),
               std::invalid_argument);  // a second copy_bandwidth
  EXPECT_THROW(result.add_anchor({.name = "", .value = 1, .unit = "GB/s"}), std::invalid_argument);
  EXPECT_THROW(result.add_anchor({.name = "x", .value = INFINITY, .unit = "GB/s"}),
               std::invalid_argument);
  EXPECT_EQ(result.anchors.size(), 3u);
}

TEST(Results, RejectsSpansThatEndBeforeTheyStartOrAreNotFinite) {
  cudalab::ResultFile result = example_result();
  const auto timeline_with = [](cudalab::Span span) {
    return cudalab::Timeline{.name = "t", .rows = {{.name = "stream 0", .spans = {span}}}};
  };
  EXPECT_THROW(result.add_timeline(timeline_with({.name = "k", .start_ms = 2, .end_ms = 1})),
               std::invalid_argument);
  EXPECT_THROW(result.add_timeline(timeline_with({.name = "k", .end_ms = std::nan("")})),
               std::invalid_argument);
  result.add_timeline(timeline_with({.name = "instant", .start_ms = 1, .end_ms = 1}));
  EXPECT_EQ(result.timelines.size(), 2u);
}

TEST_F(ResultFiles, RoundTripKeepsEveryField) {
  const cudalab::ResultFile written = example_result();
  const auto path = directory_ / "result.json";
  cudalab::write_result(path, written);
  EXPECT_FALSE(std::filesystem::exists(directory_ / "result.json.partial"));
  const cudalab::ResultFile read = cudalab::read_result(path);

  EXPECT_EQ(cudalab::to_json(read), cudalab::to_json(written));
  ASSERT_TRUE(read.gpu.has_value());
  EXPECT_EQ(read.gpu->name, "NVIDIA H200");
  EXPECT_EQ(read.gpu->compute_capability(), "9.0");
  EXPECT_EQ(read.gpu->l2_bytes, 60u * 1024 * 1024);
  EXPECT_EQ(read.gpu->driver_version, 13000);
  EXPECT_FALSE(read.ranks.has_value());
  EXPECT_TRUE(read.gpus.empty());
  ASSERT_EQ(read.figures.size(), 2u);
  EXPECT_EQ(read.figures[0].shape, (std::vector<std::int64_t>{16384, 16384}));
  EXPECT_EQ(read.figures[0].bytes, 3ull * 16384 * 16384 * 4);
  EXPECT_FALSE(read.figures[0].flops.has_value());
  EXPECT_FALSE(read.figures[0].errors.has_value());
  EXPECT_EQ(read.figures[0].fraction_of->anchor, "copy_bandwidth");
  EXPECT_EQ(read.figures[0].fraction_of->value, written.figures[0].fraction_of->value);
  EXPECT_EQ(read.figures[1].flops, 2ull * 8192 * 8192 * 8192);
  ASSERT_TRUE(read.figures[1].errors.has_value());
  EXPECT_EQ(read.figures[1].errors->max_abs, 0.031);
  EXPECT_EQ(read.figures[1].errors->max_rel, 0.0125);
  EXPECT_EQ(read.figures[1].errors->normwise, 2.1e-3);
  ASSERT_EQ(read.anchors.size(), 3u);
  EXPECT_EQ(read.anchors[0].bytes, 2ull << 30);
  EXPECT_FALSE(read.anchors[1].time_ms.has_value());
}

TEST_F(ResultFiles, RoundTripKeepsTheTimeline) {
  const auto path = directory_ / "timeline.json";
  cudalab::write_result(path, example_result());
  const cudalab::ResultFile read = cudalab::read_result(path);
  ASSERT_EQ(read.timelines.size(), 1u);
  const cudalab::Timeline& timeline = read.timelines[0];
  EXPECT_EQ(timeline.name, "2 streams");
  ASSERT_EQ(timeline.rows.size(), 2u);
  EXPECT_EQ(timeline.rows[0].name, "stream 1");
  ASSERT_EQ(timeline.rows[0].spans.size(), 2u);
  EXPECT_EQ(timeline.rows[0].spans[0].name, "copy in");
  EXPECT_EQ(timeline.rows[0].spans[0].kind, "copy");
  EXPECT_EQ(timeline.rows[0].spans[1].start_ms, 1.5);
  EXPECT_EQ(timeline.rows[0].spans[1].end_ms, 4);
  EXPECT_EQ(timeline.rows[0].spans[1].kind, "");  // no kind: written without one
  EXPECT_FALSE(cudalab::to_json(read)["timelines"][0]["rows"][0]["spans"][1].contains("kind"));
  EXPECT_TRUE(timeline.rows[1].spans.empty());
}

TEST_F(ResultFiles, RoundTripKeepsSpanIdsDependenciesAndRaces) {
  const auto path = directory_ / "streams.json";
  cudalab::write_result(path, streams_result());
  const cudalab::ResultFile read = cudalab::read_result(path);
  ASSERT_EQ(read.timelines.size(), 1u);
  const cudalab::Timeline& timeline = read.timelines[0];
  ASSERT_EQ(timeline.rows.size(), 2u);
  ASSERT_EQ(timeline.rows[1].spans.size(), 2u);
  const cudalab::Span& producer = timeline.rows[0].spans[0];
  const cudalab::Span& consumer = timeline.rows[1].spans[0];
  const cudalab::Span& racer = timeline.rows[1].spans[1];
  EXPECT_EQ(producer.id, 0);
  EXPECT_TRUE(producer.after.empty());
  EXPECT_EQ(producer.race, racer.race);
  EXPECT_NE(producer.race, "");
  EXPECT_EQ(consumer.id, 1);
  EXPECT_EQ(consumer.after, std::vector<int>{0});
  EXPECT_EQ(consumer.race, "");
  EXPECT_EQ(racer.id, 2);
  // Written only when set: a span without them has no such keys.
  const nlohmann::json written = cudalab::to_json(read);
  const nlohmann::json& consumer_json = written["timelines"][0]["rows"][1]["spans"][0];
  EXPECT_FALSE(consumer_json.contains("race"));
  EXPECT_FALSE(written["timelines"][0]["rows"][0]["spans"][0].contains("after"));
  const nlohmann::json plain = cudalab::to_json(example_result());
  EXPECT_FALSE(plain["timelines"][0]["rows"][0]["spans"][0].contains("id"));
  EXPECT_EQ(cudalab::read_result(path).timelines[0].rows[0].spans[0].id, 0);
  cudalab::write_result(path, example_result());
  EXPECT_EQ(cudalab::read_result(path).timelines[0].rows[0].spans[0].id, -1);
}

TEST_F(ResultFiles, RejectsBadSpanIdsAndDependencies) {
  using nlohmann::json;
  struct Case {
    std::function<void(json&)> damage;
    std::string expected_message;
  };
  const auto span = [](json& j, int row, int index) -> json& {
    return j["timelines"][0]["rows"][row]["spans"][index];
  };
  const std::vector<Case> cases = {
      {[&](json& j) { span(j, 0, 0)["id"] = "zero"; },
       "field 'timelines[0].rows[0].spans[0].id' must be an integer"},
      {[&](json& j) { span(j, 0, 0)["id"] = 1.5; },
       "field 'timelines[0].rows[0].spans[0].id' must be an integer"},
      {[&](json& j) { span(j, 0, 0)["id"] = -2; },
       "field 'timelines[0].rows[0].spans[0].id' must not be negative"},
      {[&](json& j) { span(j, 1, 1)["id"] = 1; },
       "field 'timelines[0].rows[1].spans[1].id' repeats the id 1"},
      {[&](json& j) { span(j, 1, 0)["after"] = 0; },
       "field 'timelines[0].rows[1].spans[0].after' must be an array"},
      {[&](json& j) { span(j, 1, 0)["after"] = json::array({"0"}); },
       "field 'timelines[0].rows[1].spans[0].after[0]' must be a span id"},
      {[&](json& j) {
         span(j, 1, 0)["after"] = json::array({0, -1});
       },
       "field 'timelines[0].rows[1].spans[0].after[1]' must be a span id"},
      {[&](json& j) { span(j, 1, 0)["after"] = json::array({7}); },
       "field 'timelines[0].rows[1].spans[0].after[0]' names the span id 7, which no span"},
      {[&](json& j) { span(j, 0, 0).erase("id"); },
       "field 'timelines[0].rows[1].spans[0].after[0]' names the span id 0"},
      {[&](json& j) { span(j, 0, 0)["race"] = true; },
       "field 'timelines[0].rows[0].spans[0].race' must be a string"},
  };
  const json good = cudalab::to_json(streams_result());
  ASSERT_EQ(rejection_of(good.dump()), "");
  for (const Case& c : cases) {
    json damaged = good;
    c.damage(damaged);
    const std::string message = rejection_of(damaged.dump());
    EXPECT_NE(message.find(c.expected_message), std::string::npos)
        << "expected: " << c.expected_message << "\nthe reader said: " << message;
  }
}

TEST_F(ResultFiles, WritingADanglingDependencyThrows) {
  cudalab::ResultFile result = streams_result();
  result.timelines[0].rows[1].spans[0].after = {42};
  EXPECT_THROW(cudalab::write_result(directory_ / "dangling.json", result),
               cudalab::ResultFormatError);
  EXPECT_FALSE(std::filesystem::exists(directory_ / "dangling.json"));
}

TEST_F(ResultFiles, RoundTripOfAMultiGpuRun) {
  const cudalab::ResultFile written = multi_gpu_result();
  const auto path = directory_ / "multi.json";
  cudalab::write_result(path, written);
  const cudalab::ResultFile read = cudalab::read_result(path);
  EXPECT_EQ(cudalab::to_json(read), cudalab::to_json(written));
  EXPECT_EQ(read.ranks, 2);
  ASSERT_EQ(read.gpus.size(), 2u);
  EXPECT_EQ(read.gpus[1].index, 1);
  EXPECT_EQ(read.gpus[1].name, "NVIDIA H200");
  EXPECT_EQ(read.gpu->index, 0);
  EXPECT_EQ(read.figures[0].unit, "GB/s busbw");
  EXPECT_EQ(read.timelines[0].rows[1].name, "rank 1");
}

TEST_F(ResultFiles, RoundTripWithoutAGpu) {
  cudalab::ResultFile written = example_result();
  written.gpu.reset();  // an emulator run
  const auto path = directory_ / "emu.json";
  cudalab::write_result(path, written);
  EXPECT_FALSE(cudalab::read_result(path).gpu.has_value());
}

TEST_F(ResultFiles, EmulatorRanksWithoutGpus) {
  cudalab::ResultFile written = multi_gpu_result();
  written.gpu.reset();  // ranks as threads over virtual devices
  written.gpus.clear();
  const auto path = directory_ / "emu-ranks.json";
  cudalab::write_result(path, written);
  const cudalab::ResultFile read = cudalab::read_result(path);
  EXPECT_EQ(read.ranks, 2);
  EXPECT_TRUE(read.gpus.empty());
  EXPECT_FALSE(cudalab::to_json(read).contains("gpus"));
}

// docs/results/lab01-h200-2026-11-29.json is a real version 1 file.
TEST_F(ResultFiles, ConvertsThePublishedVersion1File) {
  const std::filesystem::path path =
      std::filesystem::path(CUDALAB_PUBLISHED_RESULTS) / "lab01-h200-2026-11-29.json";
  nlohmann::json original;
  std::ifstream(path) >> original;
  ASSERT_EQ(original["schema"], "cudalab.result/1");

  const cudalab::ResultFile read = cudalab::read_result(path);
  ASSERT_EQ(read.figures.size(), original["figures"].size());
  ASSERT_EQ(read.figures.size(), 25u);
  for (std::size_t i = 0; i < read.figures.size(); ++i) {
    const cudalab::Figure& figure = read.figures[i];
    ASSERT_TRUE(figure.fraction_of.has_value()) << "figure " << i;
    EXPECT_EQ(figure.fraction_of->anchor, "copy_bandwidth");
    EXPECT_EQ(figure.fraction_of->value, original["figures"][i]["fraction_of_copy"].get<double>());
    EXPECT_EQ(figure.value, original["figures"][i]["value"].get<double>());
    EXPECT_FALSE(figure.flops.has_value());
    EXPECT_FALSE(figure.errors.has_value());
  }
  EXPECT_EQ(read.figures[19].version, "v4_vec4");
  EXPECT_EQ(read.figures[19].shape, (std::vector<std::int64_t>{65536, 4096}));
  EXPECT_EQ(read.anchors.size(), 2u);
  EXPECT_EQ(read.gpu->name, "NVIDIA H200");
  EXPECT_EQ(read.gpu->memory_bus_bits, 6016);
  EXPECT_FALSE(read.ranks.has_value());
  EXPECT_TRUE(read.timelines.empty());

  // Written again, it is a version 2 file that says the same.
  const auto converted = directory_ / "converted.json";
  cudalab::write_result(converted, read);
  nlohmann::json v2;
  std::ifstream(converted) >> v2;
  EXPECT_EQ(v2["schema"], "cudalab.result/2");
  EXPECT_FALSE(v2["figures"][0].contains("fraction_of_copy"));
  EXPECT_EQ(v2["figures"][0]["fraction_of"]["anchor"], "copy_bandwidth");
  EXPECT_EQ(cudalab::to_json(cudalab::read_result(converted)), cudalab::to_json(read));
}

TEST(Results, ReadsEveryPublishedFile) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CUDALAB_PUBLISHED_RESULTS)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    EXPECT_NO_THROW(cudalab::read_result(entry.path())) << entry.path();
  }
  EXPECT_GE(files, 3);
}

TEST_F(ResultFiles, Version1FractionOfCopyNeedsTheCopyAnchor) {
  nlohmann::json v1 = cudalab::to_json(example_result());
  v1["schema"] = "cudalab.result/1";
  v1["figures"] = {v1["figures"][0]};
  v1["figures"][0].erase("fraction_of");
  v1["figures"][0]["fraction_of_copy"] = 0.85;
  EXPECT_EQ(rejection_of(v1.dump()), "");
  v1["anchors"].erase(0);
  const std::string message = rejection_of(v1.dump());
  EXPECT_NE(message.find("field 'figures[0].fraction_of_copy' names anchor 'copy_bandwidth', "
                         "which is not in 'anchors'"),
            std::string::npos)
      << message;
}

TEST_F(ResultFiles, RejectsAMissingFile) {
  try {
    cudalab::read_result(directory_ / "absent.json");
    FAIL() << "a missing file was accepted";
  } catch (const cudalab::ResultFormatError& error) {
    EXPECT_NE(std::string(error.what()).find("absent.json: cannot open"), std::string::npos)
        << error.what();
  }
}

TEST_F(ResultFiles, RejectsATruncatedFile) {
  const std::string text = cudalab::to_json(example_result()).dump(2);
  const std::string message = rejection_of(text.substr(0, text.size() / 2));
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  EXPECT_NE(rejection_of("").find("empty"), std::string::npos);
}

TEST_F(ResultFiles, RejectsAnotherFormat) {
  EXPECT_NE(rejection_of(R"({"tests": [], "score": 3})").find("not a cudalab result file"),
            std::string::npos);
  EXPECT_NE(rejection_of(R"([1, 2, 3])").find("not a cudalab result file"), std::string::npos);
  EXPECT_NE(rejection_of(R"({"schema": "gradescope/1"})").find("not a cudalab result file"),
            std::string::npos);
}

TEST_F(ResultFiles, RejectsAnotherSchemaVersion) {
  nlohmann::json j = cudalab::to_json(example_result());
  j["schema"] = "cudalab.result/3";
  const std::string message = rejection_of(j.dump());
  EXPECT_NE(message.find("input.json: schema version 'cudalab.result/3' is not supported"),
            std::string::npos)
      << message;
}

// Every rule of the reader, each on an otherwise valid file: the message
// names the file and the field.
TEST_F(ResultFiles, NamesTheFieldOfEveryValidationError) {
  using nlohmann::json;
  struct Case {
    std::function<void(json&)> damage;
    std::string expected_message;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j.erase("tool"); }, "field 'tool' is missing"},
      {[](json& j) { j.erase("gpu"); }, "field 'gpu' is missing"},
      {[](json& j) { j["gpu"].erase("name"); }, "field 'gpu.name' is missing"},
      {[](json& j) { j["gpu"]["sm_count"] = "oops"; }, "field 'gpu.sm_count' must be an integer"},
      {[](json& j) { j["gpu"]["compute_capability"] = "nine"; },
       "field 'gpu.compute_capability' must look like \"9.0\""},
      {[](json& j) { j["gpu"]["driver_version"] = "13"; },
       "field 'gpu.driver_version' must look like \"13.0\""},
      {[](json& j) { j["command_line"][1] = 2; }, "field 'command_line' must hold strings"},
      {[](json& j) { j["figures"] = "oops"; }, "field 'figures' must be an array"},
      {[](json& j) { j["figures"][0] = 1; }, "field 'figures[0]' is not an object"},
      {[](json& j) { j["figures"][1].erase("time_ms"); }, "field 'figures[1].time_ms' is missing"},
      {[](json& j) { j["figures"][1]["time_ms"] = -0.5; },
       "field 'figures[1].time_ms' must not be negative"},
      {[](json& j) { j["figures"][0]["value"] = "oops"; },
       "field 'figures[0].value' must be a number"},
      {[](json& j) { j["figures"][0]["unit"] = ""; }, "field 'figures[0].unit' must not be empty"},
      {[](json& j) { j["figures"][0]["shape"][1] = -3; },
       "field 'figures[0].shape' must hold non-negative integers"},
      {[](json& j) { j["figures"][0]["bytes"] = -1; },
       "field 'figures[0].bytes' must not be negative"},
      {[](json& j) { j["figures"][1]["flops"] = 1.5; },
       "field 'figures[1].flops' must be an integer"},
      {[](json& j) { j["figures"][0]["fraction_of"] = 0.9; },
       "field 'figures[0].fraction_of' is not an object"},
      {[](json& j) { j["figures"][0]["fraction_of"].erase("anchor"); },
       "field 'figures[0].fraction_of.anchor' is missing"},
      {[](json& j) { j["figures"][0]["fraction_of"]["value"] = -0.1; },
       "field 'figures[0].fraction_of.value' must not be negative"},
      {[](json& j) { j["figures"][0]["fraction_of"]["anchor"] = "nvbandwidth"; },
       "field 'figures[0].fraction_of.anchor' names anchor 'nvbandwidth', which is not in "
       "'anchors'"},
      {[](json& j) { j["figures"][1]["fraction_of"]["anchor"] = "copy_bandwidth"; },
       "field 'figures[1].fraction_of.anchor' is measured against anchor 'copy_bandwidth' in "
       "GB/s, but the figure is in TFLOP/s"},
      {[](json& j) { j["figures"][1]["errors"] = json::object(); },
       "field 'figures[1].errors' must hold at least one of max_abs, max_rel, normwise"},
      {[](json& j) { j["figures"][1]["errors"]["max_rel"] = -1e-3; },
       "field 'figures[1].errors.max_rel' must not be negative"},
      {[](json& j) { j["figures"][1]["errors"]["normwise"] = "small"; },
       "field 'figures[1].errors.normwise' must be a number"},
      {[](json& j) { j["anchors"][0].erase("unit"); }, "field 'anchors[0].unit' is missing"},
      {[](json& j) { j["anchors"][1]["name"] = ""; }, "field 'anchors[1].name' must not be empty"},
      {[](json& j) { j["anchors"][2]["name"] = "copy_bandwidth"; },
       "field 'anchors[2].name' repeats anchor 'copy_bandwidth'"},
      {[](json& j) { j["anchors"][0]["time_ms"] = -1; },
       "field 'anchors[0].time_ms' must not be negative"},
      {[](json& j) { j["ranks"] = 0; }, "field 'ranks' must be at least 1"},
      {[](json& j) { j["ranks"] = "two"; }, "field 'ranks' must be an integer"},
      {[](json& j) { j["gpus"] = json::object(); }, "field 'gpus' must be an array"},
      {[](json& j) {
         j["gpus"] = json::array({j["gpu"], j["gpu"]});
         j["gpus"][1].erase("name");
       },
       "field 'gpus[1].name' is missing"},
      {[](json& j) {
         j["gpus"] = json::array({j["gpu"]});
         j["gpu"] = nullptr;
       },
       "field 'gpu' must be the first of 'gpus', not null"},
      {[](json& j) { j["timelines"] = json::object(); }, "field 'timelines' must be an array"},
      {[](json& j) { j["timelines"][0].erase("name"); }, "field 'timelines[0].name' is missing"},
      {[](json& j) { j["timelines"][0]["rows"][1].erase("spans"); },
       "field 'timelines[0].rows[1].spans' is missing"},
      {[](json& j) { j["timelines"][0]["rows"][0]["spans"][1].erase("start_ms"); },
       "field 'timelines[0].rows[0].spans[1].start_ms' is missing"},
      {[](json& j) { j["timelines"][0]["rows"][0]["spans"][1]["end_ms"] = 1.0; },
       "field 'timelines[0].rows[0].spans[1].end_ms' is before start_ms"},
      {[](json& j) { j["timelines"][0]["rows"][0]["spans"][0]["kind"] = 3; },
       "field 'timelines[0].rows[0].spans[0].kind' must be a string"},
  };
  const json good = cudalab::to_json(example_result());
  ASSERT_EQ(rejection_of(good.dump()), "");
  for (const Case& c : cases) {
    json damaged = good;
    c.damage(damaged);
    const std::string message = rejection_of(damaged.dump());
    EXPECT_EQ(message.rfind((directory_ / "input.json").string() + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(c.expected_message), std::string::npos)
        << "expected: " << c.expected_message << "\nthe reader said: " << message;
  }
}

// The JSON library refuses such numbers with an exception of its own; the
// reader's callers catch only ResultFormatError.
TEST_F(ResultFiles, RejectsNumbersTooLargeForADouble) {
  std::string text = cudalab::to_json(example_result()).dump();
  const std::string value = "\"value\":3579.1";
  ASSERT_NE(text.find(value), std::string::npos);
  text.replace(text.find(value), value.size(), "\"value\":1e999");
  const std::string message = rejection_of(text);
  EXPECT_NE(message.find("input.json: not valid JSON for a result"), std::string::npos) << message;
  EXPECT_NE(message.find("1e999"), std::string::npos) << message;
}

TEST_F(ResultFiles, WritingAnInvalidResultThrowsAndWritesNothing) {
  cudalab::ResultFile result = example_result();
  result.figures[0].value = std::nan("");  // bypassing add_figure
  const auto path = directory_ / "invalid.json";
  try {
    cudalab::write_result(path, result);
    FAIL() << "a NaN figure was written";
  } catch (const cudalab::ResultFormatError& error) {
    EXPECT_NE(std::string(error.what()).find("invalid.json: field 'figures[0].value'"),
              std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(directory_ / "invalid.json.partial"));
}

TEST_F(ResultFiles, WritingToAMissingDirectoryThrows) {
  EXPECT_THROW(cudalab::write_result(directory_ / "no" / "such" / "dir.json", example_result()),
               std::runtime_error);
}

}  // namespace
