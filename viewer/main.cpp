// cudalab_view: shows what a lab's kernel did (viewer_main.cpp does the work).
#include "viewer_main.hpp"

int main(int argc, char** argv) {
  return cudalab::viewer::run_viewer(argc, argv, cudalab::viewer::available_labs());
}
