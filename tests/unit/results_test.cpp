// Result files: written by benchmarks, read by the viewer. The reader must
// reject anything that is not a complete cudalab.result/1 file, by name.
#include "cudalab/results.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

namespace {

cudalab::ResultFile example_result() {
  const char* argv[] = {"lab01_bench", "--size", "16384"};
  cudalab::ResultFile result = cudalab::new_result("lab01_bench", "01_broadcast", 3, argv);
  cudalab::DeviceFacts gpu;
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
  result.gpu = gpu;
  result.add_anchor(cudalab::copy_anchor({.bytes_moved = 2ull << 30, .time_ms = 0.5}));
  result.add_anchor({.name = "pytorch:broadcast_add",
                     .value = 2820,
                     .unit = "GB/s",
                     .source = "torch 2.9, a += b, 16384 x 16384 fp32"});
  result.add_figure({.name = "broadcast_sum",
                     .version = "v3_coalesced",
                     .shape = {16384, 16384},
                     .bytes = 3ull * 16384 * 16384 * 4,
                     .time_ms = 0.9,
                     .value = 3579.1,
                     .unit = "GB/s"});
  result.add_figure({.name = "sgemm",
                     .version = "cublas",
                     .shape = {8192, 8192, 8192},
                     .time_ms = 21.5,
                     .value = 51.1,
                     .unit = "TFLOP/s"});
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
  EXPECT_EQ(result.schema, "cudalab.result/1");
  EXPECT_EQ(result.tool, "lab01_bench");
  EXPECT_EQ(result.command_line, (std::vector<std::string>{"lab01_bench", "--size", "16384"}));
  EXPECT_TRUE(std::regex_match(result.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << result.date;
  EXPECT_FALSE(result.host.empty());
  EXPECT_FALSE(result.git_revision.empty());
}

TEST(Results, BandwidthFiguresGetTheirFractionOfCopy) {
  const cudalab::ResultFile result = example_result();
  const cudalab::Anchor* copy = result.find_anchor(cudalab::kCopyAnchorName);
  ASSERT_NE(copy, nullptr);
  EXPECT_DOUBLE_EQ(copy->value, (2.0 * (1ull << 30)) / 0.5 / 1e6);  // bytes / ms / 1e6 = GB/s
  ASSERT_TRUE(result.figures[0].fraction_of_copy.has_value());
  EXPECT_DOUBLE_EQ(*result.figures[0].fraction_of_copy, 3579.1 / copy->value);
  EXPECT_FALSE(result.figures[1].fraction_of_copy.has_value());  // TFLOP/s: no copy fraction
}

TEST(Results, RejectsNonFiniteFigures) {
  cudalab::ResultFile result = example_result();
  EXPECT_THROW(result.add_figure({.name = "x", .time_ms = std::nan(""), .unit = "GB/s"}),
               std::invalid_argument);
  EXPECT_THROW(result.add_figure({.name = "x", .time_ms = -1, .unit = "GB/s"}),
               std::invalid_argument);
  EXPECT_EQ(result.figures.size(), 2u);
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
  ASSERT_EQ(read.figures.size(), 2u);
  EXPECT_EQ(read.figures[0].shape, (std::vector<std::int64_t>{16384, 16384}));
  EXPECT_EQ(read.figures[0].bytes, 3ull * 16384 * 16384 * 4);
  EXPECT_EQ(read.figures[0].fraction_of_copy, written.figures[0].fraction_of_copy);
  ASSERT_EQ(read.anchors.size(), 2u);
  EXPECT_EQ(read.anchors[0].bytes, 2ull << 30);
  EXPECT_FALSE(read.anchors[1].time_ms.has_value());
}

TEST_F(ResultFiles, RoundTripWithoutAGpu) {
  cudalab::ResultFile written = example_result();
  written.gpu.reset();  // an emulator run
  const auto path = directory_ / "emu.json";
  cudalab::write_result(path, written);
  EXPECT_FALSE(cudalab::read_result(path).gpu.has_value());
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
  j["schema"] = "cudalab.result/2";
  const std::string message = rejection_of(j.dump());
  EXPECT_NE(message.find("schema version 'cudalab.result/2' is not supported"), std::string::npos)
      << message;
}

TEST_F(ResultFiles, NamesAMissingOrMistypedField) {
  const nlohmann::json good = cudalab::to_json(example_result());
  struct Case {
    nlohmann::json::json_pointer field;
    bool remove;  // else: replace with a string
    std::string expected_message;
  };
  const std::vector<Case> cases = {
      {"/tool"_json_pointer, true, "field 'tool' is missing"},
      {"/gpu"_json_pointer, true, "field 'gpu' is missing"},
      {"/gpu/name"_json_pointer, true, "field 'gpu.name' is missing"},
      {"/gpu/sm_count"_json_pointer, false, "field 'gpu.sm_count' must be an integer"},
      {"/figures/1/time_ms"_json_pointer, true, "field 'figures[1].time_ms' is missing"},
      {"/figures/0/value"_json_pointer, false, "field 'figures[0].value' must be a number"},
      {"/anchors/0/unit"_json_pointer, true, "field 'anchors[0].unit' is missing"},
      {"/figures"_json_pointer, false, "field 'figures' must be an array"},
  };
  for (const Case& c : cases) {
    nlohmann::json damaged = good;
    if (c.remove) {
      damaged.at(c.field.parent_pointer()).erase(c.field.back());
    } else {
      damaged.at(c.field) = "oops";
    }
    const std::string message = rejection_of(damaged.dump());
    EXPECT_NE(message.find(c.expected_message), std::string::npos)
        << "for " << c.field.to_string() << " the reader said: " << message;
  }
}

TEST_F(ResultFiles, WritingToAMissingDirectoryThrows) {
  EXPECT_THROW(cudalab::write_result(directory_ / "no" / "such" / "dir.json", example_result()),
               std::runtime_error);
}

}  // namespace
