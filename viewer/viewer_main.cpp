// The viewer program, structured like Dear ImGui's GLFW + OpenGL 3 example:
// set up the window and ImGui, loop over frames, shut down. With --screenshot
// it renders a few frames off-screen, writes a PNG and exits.
#include "viewer_main.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <CLI/CLI.hpp>
#include <cfloat>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "app.hpp"
#include "model/layout_file.hpp"
#include "model/options.hpp"
#include "offscreen.hpp"

namespace cudalab::viewer {
namespace {

struct Options {
  std::string lab = "01";
  std::size_t version = 0;
  std::string shape;                // empty: the lab's initial rows x cols
  std::vector<std::string> params;  // NAME=VALUE
  std::string block = "256";
  std::string grid;  // empty: the lab's grid for the problem
  std::string results;
  std::string leaderboard;                // ./lab leaderboard's leaderboard.json
  std::string screenshot, layout, panel;  // panel empty: the first tab
  std::size_t step = 0, program = 0;
  std::optional<int> lane;  // fragments: the lane that stands out
  int frames = 4;
  bool small_png = false;
  std::string size = "1400x860";
  float scale = 0;  // 0: the monitor's content scale
};

std::optional<std::string> set_parameter(UiState& state, const std::string& name,
                                         std::int64_t value) {
  const LabSource* lab = state.lab_source();
  const auto index = lab ? parameter_index(*lab, name) : std::nullopt;
  if (!index) return "lab " + (lab ? lab->title() : "(none)") + " has no parameter '" + name + "'";
  state.request.values[*index] = value;
  return std::nullopt;
}

// Fills the state from the options; returns a message for bad values.
std::optional<std::string> apply(const Options& o, UiState& state) {
  std::string known;
  bool found = state.labs.empty();  // without labs the viewer still shows result files
  for (std::size_t i = 0; i < state.labs.size(); ++i) {
    known += (i ? ", " : "") + state.labs[i]->title();
    if (!found && state.labs[i]->title().rfind(o.lab, 0) == 0) select_lab(state, i), found = true;
  }
  if (!found) return "no lab '" + o.lab + "' in this viewer (it has: " + known + ")";
  if (!o.shape.empty()) {
    const auto shape = parse_extent(o.shape);
    if (!shape) return "--shape wants ROWSxCOLS (like 64x100), not '" + o.shape + "'";
    if (auto problem = set_parameter(state, "rows", static_cast<std::int64_t>(shape->first)))
      return problem;
    if (auto problem = set_parameter(state, "cols", static_cast<std::int64_t>(shape->second)))
      return problem;
  }
  for (const std::string& text : o.params) {
    const auto assignment = parse_assignment(text);
    if (!assignment) return "--param wants NAME=VALUE (like rows=300), not '" + text + "'";
    if (auto problem = set_parameter(state, assignment->first, assignment->second)) return problem;
  }
  const auto block = parse_dim3(o.block);
  if (!block) return "--block wants X[,Y[,Z]] (like 256 or 32,8), not '" + o.block + "'";
  state.request.block = *block;
  if (!o.grid.empty()) {
    const auto grid = parse_dim3(o.grid);
    if (!grid) return "--grid wants X[,Y[,Z]], not '" + o.grid + "'";
    state.request.grid = *grid;
    state.request.auto_grid = false;
  }
  if (state.lab_source() && o.version >= state.lab_source()->versions().size())
    return "--version must be below " + std::to_string(state.lab_source()->versions().size());
  state.request.version = o.version;
  if (!o.results.empty()) load_results(state, o.results);              // may add the timeline tab
  if (!o.leaderboard.empty()) load_leaderboard(state, o.leaderboard);  // adds its tab
  // The lab's first view (lab 04: the ring's timeline, not its bars, which
  // need a result file); without a lab, the first tab.
  const LabSource* lab = state.lab_source();
  state.panel =
      lab && !lab->views().empty() ? panel_of(lab->views().front()) : shown_panels(state).front();
  if (!o.panel.empty()) {
    const auto panel = panel_from_name(o.panel);
    if (!panel) return "--panel must be one of " + panel_names() + ", not '" + o.panel + "'";
    if (!shown(state, *panel)) {
      std::string tabs;
      for (Panel p : shown_panels(state))
        tabs += (tabs.empty() ? "" : ", ") + std::string(kPanelNames[static_cast<int>(p)]);
      return "--panel " + o.panel + ": not shown here, only " + tabs +
             " (the lab picks its views; a result file with timelines adds the timeline)";
    }
    state.panel = *panel;
  }
  state.tile_walk = {o.step, o.program};
  if (o.lane && (*o.lane < 0 || *o.lane > 31))
    return "--lane must be in 0 .. 31, not " + std::to_string(*o.lane);
  state.fragment_view.selected_lane = o.lane;
  return std::nullopt;
}

void glfw_error_callback(int error, const char* description) {
  std::fprintf(stderr, "cudalab_view: GLFW error %d: %s\n", error, description);
}

// A readable font at the monitor's scale: DejaVu Sans where the system has
// it, ImGui's built-in bitmap font otherwise.
void setup_style(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  const char* dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (std::filesystem::exists(dejavu)) {
    io.Fonts->AddFontFromFileTTF(dejavu, 15.0f * scale);
  } else {
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&config);
  }
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.FrameRounding = 3;
  style.WindowPadding = ImVec2(10, 10);
  style.ItemSpacing = ImVec2(8, 6);
  style.ScaleAllSizes(scale);
}

}  // namespace

int run_viewer(int argc, char** argv, std::vector<std::unique_ptr<LabSource>> labs) {
  Options o;
  CLI::App cli{"cudalab viewer: what a lab's kernel did (indexing, coalescing, timing)"};
  cli.add_option("lab,--lab", o.lab, "lab number, e.g. 01");
  cli.add_option("--version", o.version, "version index in the lab's list (0: the lecture's)");
  cli.add_option("--shape", o.shape, "the parameters rows and cols: ROWSxCOLS");
  cli.add_option("--param", o.params, "a lab parameter, NAME=VALUE (repeatable)");
  cli.add_option("--block", o.block, "blockDim X[,Y[,Z]]");
  cli.add_option("--grid", o.grid, "gridDim X[,Y[,Z]] (default: the lab's grid for the problem)");
  cli.add_option("--results", o.results, "a `./lab bench` result file for the timing view");
  cli.add_option("--leaderboard", o.leaderboard,
                 "`./lab leaderboard`'s leaderboard.json for the leaderboard view");
  cli.add_option("--screenshot", o.screenshot, "render off-screen, write this PNG and exit");
  cli.add_option("--panel", o.panel, "the view to open: " + panel_names());
  cli.add_option("--step", o.step, "tile walk: the step to show");
  cli.add_option("--program", o.program, "tile walk: the program whose tiles stand out");
  cli.add_option("--lane", o.lane, "tensor-core fragments: the lane whose elements stand out");
  cli.add_option("--layout", o.layout, "with --screenshot: also write where panels drew (JSON)");
  cli.add_option("--frames", o.frames, "with --screenshot: frames to render first")
      ->check(CLI::Range(1, 100));
  cli.add_flag("--small-png", o.small_png,
               "with --screenshot: 256-colour PNG (for the docs; tests want exact colours)");
  cli.add_option("--size", o.size, "window size WIDTHxHEIGHT");
  cli.add_option("--scale", o.scale, "UI scale (default: the monitor's; 1 for screenshots)");
  CLI11_PARSE(cli, argc, argv);

  UiState state;
  state.labs = std::move(labs);
  if (auto problem = apply(o, state)) {
    std::cerr << "cudalab_view: " << *problem << "\n";
    return 2;
  }
  const auto size = parse_extent(o.size);
  if (!size) {
    std::cerr << "cudalab_view: --size wants WIDTHxHEIGHT, not '" << o.size << "'\n";
    return 2;
  }
  const int width = static_cast<int>(size->first), height = static_cast<int>(size->second);
  const bool screenshot = !o.screenshot.empty();

  // Set up the window and its OpenGL 3 context.
  glfwSetErrorCallback(glfw_error_callback);
  if (!glfwInit()) {
    std::cerr << "cudalab_view: cannot open a display (no X/Wayland session? try xvfb-run)\n";
    return 1;
  }
  const char* glsl_version = "#version 130";
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  if (screenshot) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, "cudalab viewer", nullptr, nullptr);
  if (window == nullptr) {
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  // Set up Dear ImGui.
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // the layout is fixed; nothing to remember
  float scale = o.scale;
  if (scale <= 0) {
    float yscale = 1;
    if (!screenshot) glfwGetWindowContentScale(window, &scale, &yscale);
    scale = screenshot || scale <= 0 ? 1.0f : scale;
  }
  setup_style(scale);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init(glsl_version);

  std::optional<OffscreenTarget> target;
  int exit_code = 0;
  try {
    if (screenshot) target.emplace(width, height);
    // Main loop.
    for (int frame = 0; !glfwWindowShouldClose(window); ++frame) {
      glfwPollEvents();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      if (screenshot) {  // a fixed-size canvas with no mouse over it
        ImGuiIO& io = ImGui::GetIO();
        io.DisplaySize = ImVec2(float(width), float(height));
        io.DisplayFramebufferScale = ImVec2(1, 1);
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
      }
      ImGui::NewFrame();
      if (handle_shortcuts(state)) glfwSetWindowShouldClose(window, 1);
      draw_frame(state);
      if (screenshot) collect_run(state, true);  // a screenshot shows finished runs
      ImGui::Render();

      int fb_width = width, fb_height = height;
      if (target)
        target->bind();
      else
        glfwGetFramebufferSize(window, &fb_width, &fb_height);
      glViewport(0, 0, fb_width, fb_height);
      glClearColor(0.10f, 0.10f, 0.12f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

      if (screenshot && frame + 1 >= o.frames) {
        write_png(o.screenshot, target->read(), o.small_png);
        if (!o.layout.empty()) write_layout(o.layout, state.layout);
        break;
      }
      if (!screenshot) glfwSwapBuffers(window);
    }
  } catch (const std::exception& e) {
    std::cerr << "cudalab_view: " << e.what() << "\n";
    exit_code = 1;
  }

  // Shut down.
  collect_run(state, true);  // the worker must not outlive the state it reports to
  target.reset();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}

}  // namespace cudalab::viewer
