#include "cudalab/results.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace cudalab {

using nlohmann::json;

void ResultFile::add_figure(Figure figure) {
  if (!std::isfinite(figure.value) || !std::isfinite(figure.time_ms) || figure.time_ms < 0) {
    throw std::invalid_argument("figure '" + figure.name + "' " + figure.version +
                                ": value and time_ms must be finite and time_ms >= 0");
  }
  const Anchor* copy = find_anchor(kCopyAnchorName);
  if (figure.unit == "GB/s" && !figure.fraction_of_copy && copy != nullptr && copy->value > 0) {
    figure.fraction_of_copy = figure.value / copy->value;
  }
  figures.push_back(std::move(figure));
}

void ResultFile::add_anchor(Anchor anchor) {
  if (!std::isfinite(anchor.value)) {
    throw std::invalid_argument("anchor '" + anchor.name + "': value must be finite");
  }
  anchors.push_back(std::move(anchor));
}

const Anchor* ResultFile::find_anchor(const std::string& name) const {
  for (const Anchor& anchor : anchors) {
    if (anchor.name == name) return &anchor;
  }
  return nullptr;
}

Anchor copy_anchor(const BandwidthMeasurement& copy) {
  return Anchor{.name = kCopyAnchorName,
                .value = copy.gb_per_s(),
                .unit = "GB/s",
                .source = "cudaMemcpy device to device, median, bytes read + written",
                .bytes = copy.bytes_moved,
                .time_ms = copy.time_ms};
}

std::string utc_timestamp_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

namespace {

// The first line `command` prints, or "" if it fails.
std::string first_line_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::array<char, 256> line{};
  std::string text;
  if (std::fgets(line.data(), line.size(), pipe) != nullptr) text = line.data();
  if (pclose(pipe) != 0) return "";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::string git_revision() {
  // The revision of the source tree this binary was built from, asked at run
  // time so a rebuild without reconfiguring still reports the right commit.
#if defined(CUDALAB_SOURCE_DIR)
  const std::string git = std::string("git -C '") + CUDALAB_SOURCE_DIR + "' ";
  std::string revision = first_line_of(git + "rev-parse --short HEAD 2>/dev/null");
  if (!revision.empty()) {
    const std::string changes =
        first_line_of(git + "status --porcelain --untracked-files=no 2>/dev/null");
    return changes.empty() ? revision : revision + "-dirty";
  }
#endif
#if defined(CUDALAB_GIT_REVISION_AT_CONFIGURE)
  // A copy of the tree without .git (a GPU server): what CMake saw.
  if (std::string(CUDALAB_GIT_REVISION_AT_CONFIGURE) != "")
    return CUDALAB_GIT_REVISION_AT_CONFIGURE;
#endif
  return "unknown";
}

ResultFile new_result(std::string tool, std::string lab, int argc, const char* const* argv) {
  ResultFile result;
  result.tool = std::move(tool);
  result.lab = std::move(lab);
  result.host = host_name();
  result.date = utc_timestamp_now();
  result.git_revision = git_revision();
  for (int i = 0; i < argc; ++i) result.command_line.emplace_back(argv[i]);
  return result;
}

// ---- writing ---------------------------------------------------------------

namespace {

json gpu_to_json(const DeviceFacts& gpu) {
  return json{{"index", gpu.index},
              {"name", gpu.name},
              {"compute_capability", gpu.compute_capability()},
              {"sm_count", gpu.sm_count},
              {"l2_bytes", gpu.l2_bytes},
              {"global_memory_bytes", gpu.global_memory_bytes},
              {"clock_khz", gpu.clock_khz},
              {"memory_clock_khz", gpu.memory_clock_khz},
              {"memory_bus_bits", gpu.memory_bus_bits},
              {"driver_version", cuda_version_string(gpu.driver_version)},
              {"runtime_version", cuda_version_string(gpu.runtime_version)}};
}

json figure_to_json(const Figure& figure) {
  json j{{"name", figure.name},   {"version", figure.version}, {"shape", figure.shape},
         {"bytes", figure.bytes}, {"time_ms", figure.time_ms}, {"value", figure.value},
         {"unit", figure.unit}};
  if (figure.fraction_of_copy) j["fraction_of_copy"] = *figure.fraction_of_copy;
  return j;
}

json anchor_to_json(const Anchor& anchor) {
  json j{{"name", anchor.name},
         {"value", anchor.value},
         {"unit", anchor.unit},
         {"source", anchor.source}};
  if (anchor.bytes) j["bytes"] = *anchor.bytes;
  if (anchor.time_ms) j["time_ms"] = *anchor.time_ms;
  return j;
}

}  // namespace

json to_json(const ResultFile& result) {
  json j;
  j["schema"] = result.schema;
  j["tool"] = result.tool;
  j["lab"] = result.lab;
  j["gpu"] = result.gpu ? gpu_to_json(*result.gpu) : json(nullptr);
  j["host"] = result.host;
  j["date"] = result.date;
  j["git_revision"] = result.git_revision;
  j["command_line"] = result.command_line;
  j["anchors"] = json::array();
  for (const Anchor& anchor : result.anchors) j["anchors"].push_back(anchor_to_json(anchor));
  j["figures"] = json::array();
  for (const Figure& figure : result.figures) j["figures"].push_back(figure_to_json(figure));
  return j;
}

void write_result(const std::filesystem::path& path, const ResultFile& result) {
  const std::string text = to_json(result).dump(2) + "\n";
  std::filesystem::path temporary = path;
  temporary += ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error(path.string() + ": cannot write the result file");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw std::runtime_error(path.string() + ": cannot write the result file: " + error.message());
  }
}

// ---- reading ---------------------------------------------------------------

namespace {

// Reads fields out of one JSON object, naming the full path of anything
// missing or mistyped ("figures[2].time_ms") in the error.
class FieldReader {
 public:
  FieldReader(const json& object, std::string path, const std::string& source)
      : object_(object), path_(std::move(path)), source_(source) {
    if (!object_.is_object()) fail(path_.empty() ? "the top level" : path_, "is not an object");
  }

  const json& required(const std::string& key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(where(key), "is missing");
    return *it;
  }

  std::string string(const std::string& key) const {
    const json& value = required(key);
    if (!value.is_string()) fail(where(key), "must be a string");
    return value.get<std::string>();
  }

  double number(const std::string& key) const { return number_value(required(key), where(key)); }

  template <class Int>
  Int integer(const std::string& key) const {
    const json& value = required(key);
    if (!value.is_number_integer()) fail(where(key), "must be an integer");
    if constexpr (std::is_unsigned_v<Int>) {
      if (!value.is_number_unsigned()) fail(where(key), "must not be negative");
    }
    return value.get<Int>();
  }

  std::optional<double> optional_number(const std::string& key) const {
    const auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return std::nullopt;
    return number_value(*it, where(key));
  }

  const json& array(const std::string& key) const {
    const json& value = required(key);
    if (!value.is_array()) fail(where(key), "must be an array");
    return value;
  }

  std::string where(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw ResultFormatError(source_ + ": field '" + field + "' " + problem);
  }

 private:
  double number_value(const json& value, const std::string& field) const {
    if (!value.is_number()) fail(field, "must be a number");
    return value.get<double>();
  }

  const json& object_;
  std::string path_;
  const std::string& source_;
};

// "9.0" -> 9, 0
void read_compute_capability(const FieldReader& fields, DeviceFacts& gpu) {
  const std::string text = fields.string("compute_capability");
  int major = 0;
  int minor = 0;
  char dot = 0;
  std::istringstream in(text);
  if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof()) {
    fields.fail(fields.where("compute_capability"), "must look like \"9.0\", not \"" + text + "\"");
  }
  gpu.compute_capability_major = major;
  gpu.compute_capability_minor = minor;
}

// "13.0" -> 13000, "unknown" -> 0
int read_cuda_version(const FieldReader& fields, const std::string& key) {
  const std::string text = fields.string(key);
  if (text == "unknown") return 0;
  int major = 0;
  int minor = 0;
  char dot = 0;
  std::istringstream in(text);
  if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof()) {
    fields.fail(fields.where(key),
                "must look like \"13.0\" or be \"unknown\", not \"" + text + "\"");
  }
  return major * 1000 + minor * 10;
}

DeviceFacts gpu_from_json(const json& j, const std::string& source) {
  const FieldReader fields(j, "gpu", source);
  DeviceFacts gpu;
  gpu.index = fields.integer<int>("index");
  gpu.name = fields.string("name");
  read_compute_capability(fields, gpu);
  gpu.sm_count = fields.integer<int>("sm_count");
  gpu.l2_bytes = fields.integer<std::size_t>("l2_bytes");
  gpu.global_memory_bytes = fields.integer<std::size_t>("global_memory_bytes");
  gpu.clock_khz = fields.integer<int>("clock_khz");
  gpu.memory_clock_khz = fields.integer<int>("memory_clock_khz");
  gpu.memory_bus_bits = fields.integer<int>("memory_bus_bits");
  gpu.driver_version = read_cuda_version(fields, "driver_version");
  gpu.runtime_version = read_cuda_version(fields, "runtime_version");
  return gpu;
}

Figure figure_from_json(const json& j, const std::string& path, const std::string& source) {
  const FieldReader fields(j, path, source);
  Figure figure;
  figure.name = fields.string("name");
  figure.version = fields.string("version");
  for (const json& dim : fields.array("shape")) {
    if (!dim.is_number_integer()) fields.fail(fields.where("shape"), "must hold integers");
    figure.shape.push_back(dim.get<std::int64_t>());
  }
  figure.bytes = fields.integer<std::uint64_t>("bytes");
  figure.time_ms = fields.number("time_ms");
  figure.value = fields.number("value");
  figure.unit = fields.string("unit");
  figure.fraction_of_copy = fields.optional_number("fraction_of_copy");
  return figure;
}

Anchor anchor_from_json(const json& j, const std::string& path, const std::string& source) {
  const FieldReader fields(j, path, source);
  Anchor anchor;
  anchor.name = fields.string("name");
  anchor.value = fields.number("value");
  anchor.unit = fields.string("unit");
  anchor.source = fields.string("source");
  if (j.contains("bytes")) anchor.bytes = fields.integer<std::uint64_t>("bytes");
  anchor.time_ms = fields.optional_number("time_ms");
  return anchor;
}

}  // namespace

ResultFile result_from_json(const json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("schema")) {
    throw ResultFormatError(source + ": not a cudalab result file (no \"schema\" field)");
  }
  const FieldReader fields(j, "", source);
  ResultFile result;
  result.schema = fields.string("schema");
  if (result.schema != kResultSchema) {
    const bool ours = result.schema.rfind("cudalab.result/", 0) == 0;
    throw ResultFormatError(source + ": " +
                            (ours ? "schema version '" + result.schema +
                                        "' is not supported; this build reads '" + kResultSchema +
                                        "'"
                                  : "not a cudalab result file (schema '" + result.schema + "')"));
  }
  result.tool = fields.string("tool");
  result.lab = fields.string("lab");
  const json& gpu = fields.required("gpu");
  if (!gpu.is_null()) result.gpu = gpu_from_json(gpu, source);
  result.host = fields.string("host");
  result.date = fields.string("date");
  result.git_revision = fields.string("git_revision");
  for (const json& arg : fields.array("command_line")) {
    if (!arg.is_string()) fields.fail("command_line", "must hold strings");
    result.command_line.push_back(arg.get<std::string>());
  }
  const json& anchors = fields.array("anchors");
  for (std::size_t i = 0; i < anchors.size(); ++i) {
    result.anchors.push_back(
        anchor_from_json(anchors[i], "anchors[" + std::to_string(i) + "]", source));
  }
  const json& figures = fields.array("figures");
  for (std::size_t i = 0; i < figures.size(); ++i) {
    result.figures.push_back(
        figure_from_json(figures[i], "figures[" + std::to_string(i) + "]", source));
  }
  return result;
}

ResultFile parse_result(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& error) {
    throw ResultFormatError(source + ": not valid JSON (" +
                            (text.empty() ? std::string("the file is empty")
                                          : "truncated or damaged? " + std::string(error.what())) +
                            ")");
  }
  return result_from_json(j, source);
}

ResultFile read_result(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultFormatError(path.string() + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_result(text.str(), path.string());
}

}  // namespace cudalab
