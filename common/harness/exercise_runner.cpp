#include "cudalab/harness/exercise_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cudalab/harness/crash_report.hpp"
#include "cudalab/harness/gpu_probe.hpp"
#include "cudalab/harness/observation.hpp"
#include "cudalab/harness/run_log.hpp"
#include "cudalab/harness/test_watchdog.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/random.hpp"

namespace cudalab::harness {
namespace {

// Lines of one failure message that the report shows.
constexpr std::size_t kLinesPerFailure = 14;
// Findings shown per failing exercise without --verbose (one per kind).
constexpr std::size_t kMaxFindings = 3;
// The most a verdict's message may take in results.json.
constexpr std::size_t kMessageBytes = 3500;
// Notes shown per passing exercise without --verbose.
constexpr std::size_t kNotesWhenPassing = 4;
// The descriptor the child writes its JSON lines to.
constexpr int kReportFd = 3;
// Seconds one test may run before the watchdog stops it and says where it is.
constexpr double kDefaultTestSeconds = 30;

const char* backend_prefix(Where where) { return where == Where::kEmulator ? "Emu" : "Gpu"; }

// ---- the child: one exercise's tests, reported as JSON lines --------------------

class ReportWriter : public ::testing::EmptyTestEventListener {
 public:
  explicit ReportWriter(int fd) : fd_(fd) {}

 private:
  void OnTestStart(const ::testing::TestInfo& info) override {
    const std::string name = std::string(info.test_suite_name()) + "." + info.name();
    set_current_test(name.c_str());
    take_notes();
    failures_ = nlohmann::json::array();
    skip_reason_.clear();
  }

  void OnTestPartResult(const ::testing::TestPartResult& part) override {
    if (part.skipped()) {
      skip_reason_ = part.message();
      return;
    }
    if (!part.failed()) return;
    // Where the assertion sits (a test file, a harness helper) means nothing
    // to a student: the messages name the student's file and line themselves.
    failures_.push_back(readable(part.message()));
  }

  // GoogleTest's wording around an assertion's own message ("Value of: ...
  // Actual: false (...) Expected: true") and its trace of the seed (printed
  // once at the top of the report) are noise to a student.
  static std::string readable(std::string message) {
    if (const auto trace = message.find("Google Test trace:"); trace != std::string::npos) {
      message.erase(trace);
    }
    // ADD_FAILURE()'s own first line.
    if (message.rfind("Failed\n", 0) == 0) message.erase(0, 7);
    // An exception that escaped a test body, in words.
    const std::string escaped = "C++ exception with description \"",
                      thrown = "\" thrown in the test body.";
    if (message.rfind(escaped, 0) == 0 && message.size() > escaped.size() + thrown.size() &&
        message.compare(message.size() - thrown.size(), thrown.size(), thrown) == 0) {
      message = "the test stopped on an exception: " +
                message.substr(escaped.size(), message.size() - escaped.size() - thrown.size());
    }
    message = without_harness_places(message);
    const std::string actual = "\n  Actual: false (", expected = ")\nExpected: true";
    const auto open = message.find(actual);
    const auto close = message.rfind(expected);
    if (message.rfind("Value of: ", 0) == 0 && open != std::string::npos &&
        close != std::string::npos && close > open) {
      const std::string inner = message.substr(open + actual.size(), close - open - actual.size());
      message = inner + message.substr(close + expected.size());
    }
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
      message.pop_back();
    }
    return message;
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const auto* result = info.result();
    const char* outcome = result->Skipped() ? "skipped" : result->Failed() ? "failed" : "passed";
    const nlohmann::json line = {{"test", std::string(info.test_suite_name()) + "." + info.name()},
                                 {"outcome", outcome},
                                 {"failures", failures_},
                                 {"skip", skip_reason_},
                                 {"notes", take_notes()}};
    const std::string text =
        line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (write(fd_, text.data(), text.size()) < 0) std::perror("report");
  }

  int fd_;
  nlohmann::json failures_ = nlohmann::json::array();
  std::string skip_reason_;
};

int run_child(int exercise, Where where, char* program) {
  const std::string filter =
      std::string(backend_prefix(where)) + "/*.Ex" + std::to_string(exercise) + "_*";
  int gtest_argc = 1;
  char* gtest_argv[] = {program, nullptr};
  ::testing::InitGoogleTest(&gtest_argc, gtest_argv);
  GTEST_FLAG_SET(filter, filter.c_str());
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new ReportWriter(kReportFd));
  install_crash_reporter(kReportFd);
  listeners.Append(new TestWatchdog(test_time_limit(kDefaultTestSeconds), kReportFd));
  const int status = RUN_ALL_TESTS();
  // The parent knows from this line that the tests ran to their end.
  const std::string done = "{\"done\": true}\n";
  if (write(kReportFd, done.data(), done.size()) < 0) std::perror("report");
  return status;
}

// ---- the parent: spawn, collect, print --------------------------------------------

struct TestOutcome {
  std::string name;  // "Ex2Launch.Ex2_AnyShape", without the backend parts
  std::string outcome;
  std::vector<std::string> failures;
  std::vector<std::string> notes;
  std::string skip;
};

struct ExerciseOutcome {
  int number = 0;
  std::string title;
  std::string graded_elsewhere;  // ExerciseInfo::graded_elsewhere: not run here
  std::vector<TestOutcome> tests;
  std::string crash;        // set when the child died
  std::string crash_place;  // the student's file:line of the crash, when known
  bool finished = false;    // the child ran its tests to the end
  bool timed_out = false;
  std::string timeout;  // the watchdog's words: which test, kernel, where
  std::string output;   // what the child printed (stdout and stderr)
  double seconds = 0;

  std::size_t count(const std::string& outcome) const {
    std::size_t n = 0;
    for (const auto& t : tests) n += t.outcome == outcome ? 1 : 0;
    return n;
  }
  bool passed() const {
    return crash.empty() && !timed_out && count("failed") == 0 && count("passed") > 0;
  }
};

// "Emu/Ex2Launch.Ex2_AnyShape/emulator" -> "Ex2Launch.Ex2_AnyShape"
std::string short_test_name(std::string name) {
  if (const auto slash = name.find('/'); slash != std::string::npos && slash < name.find('.')) {
    name.erase(0, slash + 1);
  }
  if (const auto slash = name.rfind('/'); slash != std::string::npos && slash > name.find('.')) {
    name.erase(slash);
  }
  return name;
}

void read_report_lines(const std::string& text, ExerciseOutcome& exercise) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const auto json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded()) continue;
    if (json.contains("done")) {
      exercise.finished = true;
      continue;
    }
    if (json.contains("crash")) {
      exercise.crash = json["crash"].get<std::string>();
      if (json.contains("frames") && json["frames"].is_array()) {
        exercise.crash_place = crash_frames_place(json["frames"].get<std::vector<std::uint64_t>>());
      }
      continue;
    }
    if (json.contains("timeout")) {
      exercise.timed_out = true;
      exercise.timeout = json["timeout"].get<std::string>();
      continue;
    }
    TestOutcome test;
    test.name = short_test_name(json.value("test", "?"));
    test.outcome = json.value("outcome", "failed");
    test.failures = json.value("failures", std::vector<std::string>{});
    test.notes = json.value("notes", std::vector<std::string>{});
    test.skip = json.value("skip", "");
    exercise.tests.push_back(std::move(test));
  }
}

// Runs exercise `number` in a child process running this same program.
ExerciseOutcome run_in_child(int number, Where where, int timeout_s) {
  ExerciseOutcome exercise;
  exercise.number = number;
  int report_pipe[2], output_pipe[2];
  if (pipe(report_pipe) != 0 || pipe(output_pipe) != 0) {
    exercise.crash = std::string("could not start the tests: ") + std::strerror(errno);
    return exercise;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child < 0) {
    exercise.crash = std::string("could not start the tests: ") + std::strerror(errno);
    for (int fd : {report_pipe[0], report_pipe[1], output_pipe[0], output_pipe[1]}) close(fd);
    return exercise;
  }
  if (child == 0) {
    dup2(report_pipe[1], kReportFd);
    dup2(output_pipe[1], STDOUT_FILENO);
    dup2(output_pipe[1], STDERR_FILENO);
    for (int fd : {report_pipe[0], report_pipe[1], output_pipe[0], output_pipe[1]}) {
      if (fd != kReportFd) close(fd);
    }
    const std::string exercise_arg = std::to_string(number);
    const char* backend = where == Where::kEmulator ? "emu" : "gpu";
    execl("/proc/self/exe", "lab-exercise", "--child-exercise", exercise_arg.c_str(),
          "--child-backend", backend, static_cast<char*>(nullptr));
    std::perror("exec /proc/self/exe");
    _exit(127);
  }
  close(report_pipe[1]);
  close(output_pipe[1]);

  std::string reports, output;
  pollfd fds[2] = {{report_pipe[0], POLLIN, 0}, {output_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&reports, &output};
  int open_fds = 2;
  const auto deadline = start + std::chrono::seconds(timeout_s);
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      exercise.timed_out = true;
      kill(child, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
      char buffer[65536];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
  int status = 0;
  waitpid(child, &status, 0);
  exercise.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  exercise.output = std::move(output);
  read_report_lines(reports, exercise);
  if (!exercise.timed_out && exercise.crash.empty()) {
    if (WIFEXITED(status) && WEXITSTATUS(status) == TestWatchdog::kTimedOutStatus &&
        !exercise.finished) {
      exercise.timed_out = true;
    } else if (WIFSIGNALED(status)) {
      exercise.crash = std::string("killed by signal ") + strsignal(WTERMSIG(status));
    } else if (!exercise.finished) {
      exercise.crash = "the tests stopped early with exit status " +
                       std::to_string(WEXITSTATUS(status)) + " (exit() called in lab code?)";
    }
  }
  return exercise;
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// The verdict of one exercise in one word, as the table and results.json say it.
std::string state_of(const ExerciseOutcome& e) {
  if (!e.graded_elsewhere.empty()) return "SKIP";
  if (e.timed_out) return "TIMEOUT";
  if (!e.crash.empty()) return "CRASH";
  const std::size_t ran = e.count("failed") + e.count("passed");
  if (ran == 0) return "SKIP";
  return e.count("failed") == 0 ? "pass" : "FAIL";
}

// What follows the verdict on its line.
std::string summary_of(const ExerciseOutcome& e, int timeout_s) {
  if (!e.graded_elsewhere.empty()) return "not run here: " + e.graded_elsewhere;
  const std::string state = state_of(e);
  if (state == "TIMEOUT") {
    return e.timeout.empty()
               ? "stopped after " + std::to_string(timeout_s) + " s without a word from the tests"
               : "a test ran too long: details below";
  }
  if (state == "CRASH") {
    return e.crash + (e.crash_place.empty() ? std::string() : " at " + e.crash_place);
  }
  const std::size_t failed = e.count("failed"), passed = e.count("passed");
  if (state == "SKIP") {
    return "no test ran on this backend" +
           (e.tests.empty() || e.tests.front().skip.empty() ? "" : ": " + e.tests.front().skip);
  }
  if (failed == 0) return std::to_string(passed) + " tests";
  return std::to_string(failed) + " of " + std::to_string(failed + passed) + " tests fail";
}

// The one line per exercise that opens the report.
std::string summary_line(const ExerciseOutcome& e, int timeout_s) {
  return "  exercise " + std::to_string(e.number) + "  " + pad(state_of(e), 8) + pad(e.title, 52) +
         " " + summary_of(e, timeout_s);
}

std::string indented(const std::string& text, const std::string& indent, std::size_t max_lines) {
  std::istringstream lines(text);
  std::string line, out;
  std::size_t count = 0;
  while (std::getline(lines, line)) {
    if (count++ == max_lines) {
      out += indent + "...\n";
      break;
    }
    out += indent + line + "\n";
  }
  return out;
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t begin = text.size();
  for (std::size_t n = 0; n <= count && begin > 0;) {
    if (text[--begin] == '\n') ++n;
  }
  return text.substr(begin == 0 ? 0 : begin + 1);
}

// ---- evidence: which failure explains the others ------------------------------------

// Kinds of failure message, in the order a student should read them: the
// coverage of the output (which threads wrote which elements) explains an
// indexing bug; a fault or an exception stops the code; wrong values follow
// from either; emulator reports (races, uninitialised reads) are often the
// consequence of the same bug (two threads writing one element race).
enum class Evidence { coverage, fault, wrong_values, other, reports };

Evidence evidence_of(const std::string& failure) {
  if (failure.find("must be written by exactly one thread") != std::string::npos) {
    return Evidence::coverage;
  }
  if (failure.find("the lab code failed with") != std::string::npos) return Evidence::fault;
  if (failure.find("the emulator reported") != std::string::npos) return Evidence::reports;
  if (failure.find("wrong result") != std::string::npos ||
      failure.find("elements differ") != std::string::npos) {
    return Evidence::wrong_values;
  }
  return Evidence::other;
}

struct Finding {
  Evidence kind;
  std::string test;
  std::string text;
};

std::vector<Finding> findings_of(const ExerciseOutcome& e) {
  std::vector<Finding> findings;
  for (const auto& t : e.tests) {
    if (t.outcome != "failed") continue;
    for (const auto& f : t.failures) findings.push_back({evidence_of(f), t.name, f});
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.kind < b.kind; });
  return findings;
}

std::string heading_of(const Finding& finding, std::size_t position, bool coverage_seen) {
  if (finding.kind == Evidence::reports && position > 0) {
    return coverage_seen ? "probably a consequence of the above (threads that write the same "
                           "element race with each other), from "
                         : "the emulator also saw, in ";
  }
  return position == 0 ? "most likely cause, from " : "also, in ";
}

// The student-facing explanation of one exercise: for a failure, the
// evidence in reading order (one finding per kind unless verbose), then the
// failing tests; for a crash or a time-out, what and where.
std::string details_of(const ExerciseOutcome& e, bool verbose, const std::string& fault_hint) {
  std::string out;
  if (e.timed_out) {
    out += e.timeout.empty() ? "  timed out without a word from the tests\n"
                             : indented(e.timeout, "  ", 40);
  } else if (!e.crash.empty()) {
    out += "  crashed: " + e.crash + "\n";
    if (!e.crash_place.empty()) out += "  at " + e.crash_place + "\n";
  }
  if ((e.timed_out || !e.crash.empty()) && !e.output.empty() && verbose) {
    out += "  last output:\n" + indented(last_lines(e.output, 12), "    ", 12);
  }
  const auto findings = findings_of(e);
  std::vector<bool> kind_shown(static_cast<std::size_t>(Evidence::reports) + 1, false);
  bool coverage_seen = false;
  std::size_t shown = 0;
  for (const auto& f : findings) {
    const auto kind = static_cast<std::size_t>(f.kind);
    if (!verbose && (kind_shown[kind] || shown == kMaxFindings)) continue;
    kind_shown[kind] = true;
    out += "  " + heading_of(f, shown, coverage_seen) + f.test + ":\n";
    out += indented(f.text, "      ", kLinesPerFailure);
    coverage_seen |= f.kind == Evidence::coverage;
    ++shown;
  }
  if (!fault_hint.empty() && kind_shown[static_cast<std::size_t>(Evidence::fault)]) {
    out += "  " + fault_hint + "\n";
  }
  std::vector<std::string> failing;
  for (const auto& t : e.tests) {
    if (t.outcome == "failed") failing.push_back(t.name);
  }
  if (!failing.empty()) {
    out += "  failing tests:";
    for (const auto& name : failing) out += " " + name;
    out += "\n";
  }
  return out;
}

void print_details(const ExerciseOutcome& e, bool verbose, const std::string& fault_hint) {
  std::size_t notes = 0;
  for (const auto& t : e.tests) notes += t.notes.size();
  if (!e.graded_elsewhere.empty() || (e.passed() && !verbose && notes == 0)) return;
  std::cout << "\n== exercise " << e.number << ": " << e.title << "\n";
  std::cout << details_of(e, verbose, fault_hint);
  if (verbose) {
    for (const auto& t : e.tests) {
      if (t.outcome != "failed") {
        std::cout << "  " << (t.outcome == "passed" ? "ok  " : "skip") << "  " << t.name << "\n";
      }
    }
  }
  std::size_t notes_shown = 0;
  for (const auto& t : e.tests) {
    for (const auto& n : t.notes) {
      if (e.passed() && !verbose && notes_shown == kNotesWhenPassing) break;
      ++notes_shown;
      std::cout << indented(n, "  note  ", kLinesPerFailure);
    }
  }
  if (notes_shown < notes && !verbose) {
    std::cout << "  (" << notes - notes_shown << " more notes: --verbose)\n";
  }
}

// At most `limit` bytes of `text`, cut at a line end, saying that it was cut.
std::string at_most(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  const std::string tail = "  ... (cut; ./lab run shows it all)\n";
  std::size_t end = text.rfind('\n', limit - tail.size());
  if (end == std::string::npos) end = limit - tail.size();
  return text.substr(0, end + 1) + tail;
}

// The verdicts as ./lab grade reads them (tools/grade.py, docs/results-format.md).
void write_verdicts(const std::string& path, const LabInfo& lab, Where where, std::uint64_t seed,
                    const std::vector<ExerciseOutcome>& outcomes, int timeout_s,
                    const std::string& fault_hint) {
  nlohmann::json exercises = nlohmann::json::array();
  for (const auto& e : outcomes) {
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& t : e.tests) tests.push_back({{"name", t.name}, {"outcome", t.outcome}});
    exercises.push_back({{"number", e.number},
                         {"title", e.title},
                         {"state", state_of(e)},
                         {"summary", summary_of(e, timeout_s)},
                         {"message", at_most(details_of(e, false, fault_hint), kMessageBytes)},
                         {"seconds", e.seconds},
                         {"tests", tests}});
  }
  const nlohmann::json verdicts = {{"lab", lab.number},
                                   {"name", lab.name},
                                   {"code", lab.code_from},
                                   {"backend", where == Where::kGpu ? "gpu" : "emulator"},
                                   {"seed", std::to_string(seed)},
                                   {"exercises", exercises}};
  std::ofstream file(path);
  file << verdicts.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (!file) throw std::runtime_error("cannot write " + path);
}

int run_parent(int argc, char** argv, const LabInfo& lab) {
  CLI::App app{"lab" + lab.number + ": run each exercise of lab " + lab.number +
               " and say what is right and what is wrong"};
  bool emu = false, gpu = false, verbose = false;
  int only = 0;
  int timeout_s = 600;
  double test_timeout_s = test_time_limit(kDefaultTestSeconds);
  std::string json_path;
  auto* on_emu =
      app.add_flag("--emu", emu, "run on the CPU emulator (default: the GPU when there is one)");
  app.add_flag("--gpu", gpu, "run on the GPU")->excludes(on_emu);
  app.add_option("--exercise", only, "run exercise K only")
      ->check(CLI::Validator(
          [&lab](const std::string& text) -> std::string {
            for (const auto& exercise : lab.exercises) {
              if (std::to_string(exercise.number) == text) return "";
            }
            return "lab " + lab.number + " has no exercise " + text + " (it has " +
                   std::to_string(lab.exercises.size()) + ")";
          },
          "K"));
  app.add_flag("-v,--verbose", verbose, "list every test and every failure");
  app.add_option("--test-timeout", test_timeout_s,
                 "seconds one test may run before it is stopped and its place reported")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", timeout_s, "seconds one exercise may run in all")
      ->check(CLI::PositiveNumber);
  app.add_option("--json", json_path, "also write the verdicts to this file (for ./lab grade)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  setenv("CUDALAB_TEST_TIMEOUT_S", std::to_string(test_timeout_s).c_str(), 1);

  std::string why_no_gpu;
  const bool have_gpu = !emu && gpu_available(&why_no_gpu);
  if (gpu && !have_gpu) {
    std::cerr << "lab" << lab.number << ": --gpu: " << why_no_gpu << "\n";
    return 2;
  }
  const Where where = have_gpu ? Where::kGpu : Where::kEmulator;
  // One seed for every exercise, printed so that a run can be repeated.
  const std::uint64_t seed = cudalab::fresh_seed();
  setenv("CUDALAB_SEED", std::to_string(seed).c_str(), 1);

  const std::string code = lab.code_from + "/" + lab.number + "_" + lab.name +
                           (lab.code_from == "labs" ? " (your code)" : " (the reference solution)");
  std::cout << "lab " << lab.number << " " << lab.name << ": " << code << " on the "
            << (where == Where::kGpu ? "GPU" : "CPU emulator") << ", random seed " << seed
            << " (CUDALAB_SEED=" << seed << " repeats it)\n\n";

  std::vector<ExerciseOutcome> outcomes;
  std::vector<int> elsewhere;
  for (const auto& exercise : lab.exercises) {
    if (only != 0 && only != exercise.number) continue;
    if (exercise.graded_elsewhere.empty()) {
      outcomes.push_back(run_in_child(exercise.number, where, timeout_s));
    } else {
      outcomes.emplace_back();
      outcomes.back().number = exercise.number;
      outcomes.back().graded_elsewhere = exercise.graded_elsewhere;
      elsewhere.push_back(exercise.number);
    }
    outcomes.back().title = exercise.title;
    std::cout << summary_line(outcomes.back(), timeout_s) << "\n" << std::flush;
  }
  std::size_t passed = 0;
  for (const auto& e : outcomes) passed += e.passed() ? 1 : 0;
  const std::size_t ran = outcomes.size() - elsewhere.size();
  std::cout << "\n" << passed << " of " << ran << " exercises pass";
  for (std::size_t i = 0; i < elsewhere.size(); ++i) {
    std::cout << (i == 0 ? " (not run here: exercise " : ", ") << elsewhere[i];
  }
  std::cout << (elsewhere.empty() ? "." : ").");
  if (passed != ran) {
    std::cout << " Why, most likely cause first; ./lab run " << lab.number
              << " --exercise K runs one exercise, --verbose shows every failure.";
  }
  std::cout << "\n";
  // A GPU fault says nothing about where it happened; the emulator does.
  const std::string fault_hint = where == Where::kGpu
                                     ? "(a fault on the GPU does not say where: ./lab run " +
                                           lab.number + " --emu names the thread and the line)"
                                     : "";
  for (const auto& e : outcomes) print_details(e, verbose, fault_hint);
  if (!json_path.empty()) {
    write_verdicts(json_path, lab, where, seed, outcomes, timeout_s, fault_hint);
  }
  return passed == ran ? 0 : 1;
}

}  // namespace

int run_exercises(int argc, char** argv, const LabInfo& lab) {
  if (argc == 5 && std::string(argv[1]) == "--child-exercise") {
    const Where where = std::string(argv[4]) == "gpu" ? Where::kGpu : Where::kEmulator;
    return run_child(std::atoi(argv[2]), where, argv[0]);
  }
  return run_parent(argc, argv, lab);
}

}  // namespace cudalab::harness
