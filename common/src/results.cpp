#include "cudalab/results.hpp"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace cudalab {

using nlohmann::json;

namespace {

bool is_finite_non_negative(double x) { return std::isfinite(x) && x >= 0; }

void check_errors(const ErrorFigures& errors, const std::string& figure) {
  const std::optional<double> all[] = {errors.max_abs, errors.max_rel, errors.normwise};
  bool any = false;
  for (const std::optional<double>& error : all) {
    if (!error) continue;
    any = true;
    if (!is_finite_non_negative(*error)) {
      throw std::invalid_argument(figure + ": errors must be finite and >= 0 (leave out a " +
                                  "relative error against zeros)");
    }
  }
  if (!any)
    throw std::invalid_argument(figure + ": errors holds none of max_abs, max_rel, normwise");
}

}  // namespace

void ResultFile::add_figure(Figure figure, const std::string& anchor_name) {
  const std::string what = "figure '" + figure.name + "' " + figure.version;
  if (!std::isfinite(figure.value) || !is_finite_non_negative(figure.time_ms)) {
    throw std::invalid_argument(what + ": value and time_ms must be finite and time_ms >= 0");
  }
  if (figure.errors) check_errors(*figure.errors, what);
  if (figure.fraction_of && !is_finite_non_negative(figure.fraction_of->value)) {
    throw std::invalid_argument(what + ": fraction_of must be finite and >= 0");
  }
  std::string against = anchor_name;
  if (against.empty() && figure.unit == "GB/s") against = kCopyAnchorName;
  const Anchor* anchor = find_anchor(against);
  if (anchor != nullptr && anchor->unit != figure.unit) {
    // The copy anchor is only a default: a figure in other units skips it.
    if (!anchor_name.empty()) {
      throw std::invalid_argument(what + " is in " + figure.unit + " but anchor '" + anchor_name +
                                  "' is in " + anchor->unit);
    }
    anchor = nullptr;
  }
  // An anchor measured as zero (no time) gives no fraction rather than inf.
  if (!figure.fraction_of && anchor != nullptr && anchor->value > 0) {
    figure.fraction_of = Fraction{.anchor = anchor->name, .value = figure.value / anchor->value};
  }
  figures.push_back(std::move(figure));
}

void ResultFile::add_anchor(Anchor anchor) {
  if (anchor.name.empty() || find_anchor(anchor.name) != nullptr) {
    throw std::invalid_argument("anchor '" + anchor.name +
                                "': the name must be new and not empty (figures name it)");
  }
  if (!std::isfinite(anchor.value) ||
      (anchor.time_ms && !is_finite_non_negative(*anchor.time_ms))) {
    throw std::invalid_argument("anchor '" + anchor.name +
                                "': value and time_ms must be finite and time_ms >= 0");
  }
  anchors.push_back(std::move(anchor));
}

void ResultFile::add_timeline(Timeline timeline) {
  for (const TimelineRow& row : timeline.rows) {
    for (const Span& span : row.spans) {
      if (!std::isfinite(span.start_ms) || !std::isfinite(span.end_ms) ||
          span.end_ms < span.start_ms) {
        throw std::invalid_argument("timeline '" + timeline.name + "', row '" + row.name +
                                    "', span '" + span.name +
                                    "': start_ms and end_ms must be finite, end_ms >= start_ms");
      }
    }
  }
  timelines.push_back(std::move(timeline));
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
  // Whoever copied the tree without .git (to a GPU server) knows the
  // revision; ./lab sets it from git, so it also wins over git here.
  if (const char* given = std::getenv(kGitRevisionVariable); given != nullptr) {
    std::istringstream words(given);
    std::string revision;
    if (words >> revision) return revision;
  }
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
  // A copy of the tree without .git: what CMake saw ($CUDALAB_GIT_REVISION
  // or git, at configure time).
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
  if (figure.flops) j["flops"] = *figure.flops;
  if (figure.fraction_of) {
    j["fraction_of"] = {{"anchor", figure.fraction_of->anchor},
                        {"value", figure.fraction_of->value}};
  }
  if (figure.errors) {
    json& errors = j["errors"] = json::object();
    if (figure.errors->max_abs) errors["max_abs"] = *figure.errors->max_abs;
    if (figure.errors->max_rel) errors["max_rel"] = *figure.errors->max_rel;
    if (figure.errors->normwise) errors["normwise"] = *figure.errors->normwise;
  }
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

json timeline_to_json(const Timeline& timeline) {
  json rows = json::array();
  for (const TimelineRow& row : timeline.rows) {
    json spans = json::array();
    for (const Span& span : row.spans) {
      json s{{"name", span.name}, {"start_ms", span.start_ms}, {"end_ms", span.end_ms}};
      if (!span.kind.empty()) s["kind"] = span.kind;
      if (span.id >= 0) s["id"] = span.id;
      if (!span.after.empty()) s["after"] = span.after;
      if (!span.race.empty()) s["race"] = span.race;
      spans.push_back(std::move(s));
    }
    rows.push_back({{"name", row.name}, {"spans", std::move(spans)}});
  }
  return {{"name", timeline.name}, {"rows", std::move(rows)}};
}

}  // namespace

json to_json(const ResultFile& result) {
  json j;
  j["schema"] = kResultSchema;
  j["tool"] = result.tool;
  j["lab"] = result.lab;
  j["gpu"] = result.gpu ? gpu_to_json(*result.gpu) : json(nullptr);
  if (result.ranks) j["ranks"] = *result.ranks;
  if (!result.gpus.empty()) {
    j["gpus"] = json::array();
    for (const DeviceFacts& gpu : result.gpus) j["gpus"].push_back(gpu_to_json(gpu));
  }
  j["host"] = result.host;
  j["date"] = result.date;
  j["git_revision"] = result.git_revision;
  j["command_line"] = result.command_line;
  j["anchors"] = json::array();
  for (const Anchor& anchor : result.anchors) j["anchors"].push_back(anchor_to_json(anchor));
  j["figures"] = json::array();
  for (const Figure& figure : result.figures) j["figures"].push_back(figure_to_json(figure));
  if (!result.timelines.empty()) {
    j["timelines"] = json::array();
    for (const Timeline& timeline : result.timelines)
      j["timelines"].push_back(timeline_to_json(timeline));
  }
  if (!result.notes.empty()) j["notes"] = result.notes;
  return j;
}

void write_result(const std::filesystem::path& path, const ResultFile& result) {
  const json j = to_json(result);
  result_from_json(j, path.string());  // throws what a reader of this file would say
  const std::string text = j.dump(2) + "\n";
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

enum class SchemaVersion { v1, v2 };

// Reads fields out of one JSON object, naming the full path of anything
// missing, mistyped or out of range ("figures[2].time_ms") in the error.
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

  // nullptr when the key is absent or null.
  const json* optional(const std::string& key) const {
    const auto it = object_.find(key);
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  std::string string(const std::string& key) const {
    const json& value = required(key);
    if (!value.is_string()) fail(where(key), "must be a string");
    return value.get<std::string>();
  }

  std::string non_empty_string(const std::string& key) const {
    std::string value = string(key);
    if (value.empty()) fail(where(key), "must not be empty");
    return value;
  }

  // Finite: JSON has no NaN, but a number too large for a double reads as
  // infinity, and an in-memory result being written may hold NaN.
  double number(const std::string& key) const { return finite(required(key), where(key)); }

  double non_negative_number(const std::string& key) const {
    const double value = number(key);
    if (value < 0) fail(where(key), "must not be negative");
    return value;
  }

  std::optional<double> optional_non_negative_number(const std::string& key) const {
    if (optional(key) == nullptr) return std::nullopt;
    return non_negative_number(key);
  }

  template <class Int>
  Int integer(const std::string& key) const {
    const json& value = required(key);
    if (!value.is_number_integer()) fail(where(key), "must be an integer");
    if constexpr (std::is_unsigned_v<Int>) {
      if (!value.is_number_unsigned()) fail(where(key), "must not be negative");
    }
    return value.get<Int>();
  }

  template <class Int>
  std::optional<Int> optional_integer(const std::string& key) const {
    if (optional(key) == nullptr) return std::nullopt;
    return integer<Int>(key);
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
  double finite(const json& value, const std::string& field) const {
    if (!value.is_number()) fail(field, "must be a number");
    const double number = value.get<double>();
    if (!std::isfinite(number)) fail(field, "must be finite");
    return number;
  }

  const json& object_;
  std::string path_;
  const std::string& source_;
};

// "figures" + 2 -> "figures[2]"
std::string element(const std::string& array_path, std::size_t index) {
  return array_path + "[" + std::to_string(index) + "]";
}

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

DeviceFacts gpu_from_json(const json& j, const std::string& path, const std::string& source) {
  const FieldReader fields(j, path, source);
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

Anchor anchor_from_json(const json& j, const std::string& path, const std::string& source) {
  const FieldReader fields(j, path, source);
  Anchor anchor;
  anchor.name = fields.non_empty_string("name");
  anchor.value = fields.number("value");
  anchor.unit = fields.string("unit");
  anchor.source = fields.string("source");
  anchor.bytes = fields.optional_integer<std::uint64_t>("bytes");
  anchor.time_ms = fields.optional_non_negative_number("time_ms");
  return anchor;
}

// `field` names the fraction in the file: "figures[2].fraction_of.anchor", or
// for a version 1 file "figures[2].fraction_of_copy".
void check_fraction_anchor(const FieldReader& fields, const std::string& field,
                           const Figure& figure, const std::vector<Anchor>& anchors) {
  const std::string& name = figure.fraction_of->anchor;
  for (const Anchor& anchor : anchors) {
    if (anchor.name != name) continue;
    if (anchor.unit != figure.unit) {
      fields.fail(field, "is measured against anchor '" + name + "' in " + anchor.unit +
                             ", but the figure is in " + figure.unit);
    }
    return;
  }
  fields.fail(field, "names anchor '" + name + "', which is not in 'anchors'");
}

std::optional<Fraction> fraction_from_json(const FieldReader& fields, const std::string& key,
                                           const std::string& source) {
  const json* j = fields.optional(key);
  if (j == nullptr) return std::nullopt;
  const FieldReader fraction(*j, fields.where(key), source);
  return Fraction{.anchor = fraction.non_empty_string("anchor"),
                  .value = fraction.non_negative_number("value")};
}

std::optional<ErrorFigures> errors_from_json(const FieldReader& fields, const std::string& source) {
  const json* j = fields.optional("errors");
  if (j == nullptr) return std::nullopt;
  const FieldReader error(*j, fields.where("errors"), source);
  ErrorFigures errors{.max_abs = error.optional_non_negative_number("max_abs"),
                      .max_rel = error.optional_non_negative_number("max_rel"),
                      .normwise = error.optional_non_negative_number("normwise")};
  if (!errors.max_abs && !errors.max_rel && !errors.normwise) {
    fields.fail(fields.where("errors"), "must hold at least one of max_abs, max_rel, normwise");
  }
  return errors;
}

Figure figure_from_json(const json& j, const std::string& path, const std::string& source,
                        SchemaVersion version, const std::vector<Anchor>& anchors) {
  const FieldReader fields(j, path, source);
  Figure figure;
  figure.name = fields.string("name");
  figure.version = fields.string("version");
  for (const json& dim : fields.array("shape")) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0) {
      fields.fail(fields.where("shape"), "must hold non-negative integers");
    }
    figure.shape.push_back(dim.get<std::int64_t>());
  }
  figure.bytes = fields.integer<std::uint64_t>("bytes");
  figure.time_ms = fields.non_negative_number("time_ms");
  figure.value = fields.number("value");
  figure.unit = fields.string("unit");
  if (version == SchemaVersion::v1) {
    // Version 1 knew one anchor: the copy.
    if (const json* copy = fields.optional("fraction_of_copy"); copy != nullptr) {
      figure.fraction_of = Fraction{.anchor = kCopyAnchorName,
                                    .value = fields.non_negative_number("fraction_of_copy")};
      check_fraction_anchor(fields, fields.where("fraction_of_copy"), figure, anchors);
    }
    return figure;
  }
  if (figure.unit.empty()) fields.fail(fields.where("unit"), "must not be empty");
  figure.flops = fields.optional_integer<std::uint64_t>("flops");
  figure.fraction_of = fraction_from_json(fields, "fraction_of", source);
  if (figure.fraction_of) {
    check_fraction_anchor(fields, fields.where("fraction_of.anchor"), figure, anchors);
  }
  figure.errors = errors_from_json(fields, source);
  return figure;
}

Span span_from_json(const json& j, const std::string& path, const std::string& source) {
  const FieldReader fields(j, path, source);
  Span span;
  span.name = fields.string("name");
  span.start_ms = fields.number("start_ms");
  span.end_ms = fields.number("end_ms");
  if (span.end_ms < span.start_ms) {
    fields.fail(fields.where("end_ms"), "is before start_ms (" + std::to_string(span.end_ms) +
                                            " < " + std::to_string(span.start_ms) + ")");
  }
  if (fields.optional("kind") != nullptr) span.kind = fields.string("kind");
  if (const std::optional<int> id = fields.optional_integer<int>("id")) {
    if (*id < 0) fields.fail(fields.where("id"), "must not be negative");
    span.id = *id;
  }
  if (fields.optional("after") != nullptr) {
    const json& after = fields.array("after");
    for (std::size_t i = 0; i < after.size(); ++i) {
      if (!after[i].is_number_integer() || after[i].get<long long>() < 0 ||
          after[i].get<long long>() > std::numeric_limits<int>::max()) {
        fields.fail(element(fields.where("after"), i), "must be a span id (an integer >= 0)");
      }
      span.after.push_back(after[i].get<int>());
    }
  }
  if (fields.optional("race") != nullptr) span.race = fields.string("race");
  return span;
}

// Span ids are unique in their timeline, and every `after` names one of them:
// the viewer draws an arrow for each, so a dangling one is a broken file.
void check_span_ids(const Timeline& timeline, const std::string& path, const std::string& source) {
  std::set<int> ids;
  for (std::size_t r = 0; r < timeline.rows.size(); ++r) {
    for (std::size_t s = 0; s < timeline.rows[r].spans.size(); ++s) {
      const int id = timeline.rows[r].spans[s].id;
      if (id >= 0 && !ids.insert(id).second) {
        throw ResultFormatError(source + ": field '" +
                                element(element(path + ".rows", r) + ".spans", s) +
                                ".id' repeats the id " + std::to_string(id));
      }
    }
  }
  for (std::size_t r = 0; r < timeline.rows.size(); ++r) {
    for (std::size_t s = 0; s < timeline.rows[r].spans.size(); ++s) {
      const std::vector<int>& after = timeline.rows[r].spans[s].after;
      for (std::size_t a = 0; a < after.size(); ++a) {
        if (ids.count(after[a]) == 0) {
          throw ResultFormatError(
              source + ": field '" +
              element(element(element(path + ".rows", r) + ".spans", s) + ".after", a) +
              "' names the span id " + std::to_string(after[a]) +
              ", which no span of this timeline has");
        }
      }
    }
  }
}

Timeline timeline_from_json(const json& j, const std::string& path, const std::string& source) {
  const FieldReader fields(j, path, source);
  Timeline timeline;
  timeline.name = fields.string("name");
  const json& rows = fields.array("rows");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::string row_path = element(fields.where("rows"), r);
    const FieldReader row_fields(rows[r], row_path, source);
    TimelineRow row;
    row.name = row_fields.string("name");
    const json& spans = row_fields.array("spans");
    for (std::size_t s = 0; s < spans.size(); ++s) {
      row.spans.push_back(span_from_json(spans[s], element(row_path + ".spans", s), source));
    }
    timeline.rows.push_back(std::move(row));
  }
  check_span_ids(timeline, path, source);
  return timeline;
}

SchemaVersion schema_version(const FieldReader& fields, const std::string& source) {
  const std::string schema = fields.string("schema");
  if (schema == kResultSchema) return SchemaVersion::v2;
  if (schema == kResultSchemaV1) return SchemaVersion::v1;
  const bool ours = schema.rfind("cudalab.result/", 0) == 0;
  throw ResultFormatError(source + ": " +
                          (ours ? "schema version '" + schema +
                                      "' is not supported; this build reads '" + kResultSchema +
                                      "' and '" + kResultSchemaV1 + "'"
                                : "not a cudalab result file (schema '" + schema + "')"));
}

// The fields version 2 added for multi-GPU runs.
void read_devices(const FieldReader& fields, const std::string& source, ResultFile& result) {
  if (fields.optional("ranks") != nullptr) {
    result.ranks = fields.integer<int>("ranks");
    if (*result.ranks < 1) fields.fail("ranks", "must be at least 1");
  }
  if (fields.optional("gpus") == nullptr) return;
  const json& gpus = fields.array("gpus");
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    result.gpus.push_back(gpu_from_json(gpus[i], element("gpus", i), source));
  }
  if (!result.gpus.empty() && !result.gpu) {
    fields.fail("gpu", "must be the first of 'gpus', not null");
  }
}

}  // namespace

Timeline timeline_from_json(const json& j, const std::string& source) {
  return timeline_from_json(j, "timeline", source);
}

ResultFile result_from_json(const json& j, const std::string& source) {
  if (!j.is_object() || !j.contains("schema")) {
    throw ResultFormatError(source + ": not a cudalab result file (no \"schema\" field)");
  }
  const FieldReader fields(j, "", source);
  const SchemaVersion version = schema_version(fields, source);
  ResultFile result;
  result.tool = fields.string("tool");
  result.lab = fields.string("lab");
  const json& gpu = fields.required("gpu");
  if (!gpu.is_null()) result.gpu = gpu_from_json(gpu, "gpu", source);
  if (version == SchemaVersion::v2) read_devices(fields, source, result);
  result.host = fields.string("host");
  result.date = fields.string("date");
  result.git_revision = fields.string("git_revision");
  for (const json& arg : fields.array("command_line")) {
    if (!arg.is_string()) fields.fail("command_line", "must hold strings");
    result.command_line.push_back(arg.get<std::string>());
  }
  const json& anchors = fields.array("anchors");
  for (std::size_t i = 0; i < anchors.size(); ++i) {
    Anchor anchor = anchor_from_json(anchors[i], element("anchors", i), source);
    // A fraction_of names its anchor, so the name must say which one.
    if (result.find_anchor(anchor.name) != nullptr) {
      fields.fail(element("anchors", i) + ".name", "repeats anchor '" + anchor.name + "'");
    }
    result.anchors.push_back(std::move(anchor));
  }
  const json& figures = fields.array("figures");
  for (std::size_t i = 0; i < figures.size(); ++i) {
    result.figures.push_back(
        figure_from_json(figures[i], element("figures", i), source, version, result.anchors));
  }
  if (version == SchemaVersion::v2 && fields.optional("timelines") != nullptr) {
    const json& timelines = fields.array("timelines");
    for (std::size_t i = 0; i < timelines.size(); ++i) {
      result.timelines.push_back(timeline_from_json(timelines[i], element("timelines", i), source));
    }
  }
  if (fields.optional("notes") != nullptr) {
    for (const json& note : fields.array("notes")) {
      if (!note.is_string()) fields.fail("notes", "must hold strings");
      result.notes.push_back(note.get<std::string>());
    }
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
  } catch (const json::out_of_range& error) {
    // A number no double can hold, e.g. 1e999.
    throw ResultFormatError(source + ": not valid JSON for a result (" + error.what() + ")");
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
