// The viewer program: options, window, frame loop, screenshot mode. main.cpp
// runs it with the labs of this build; the tests run it with their own.
#pragma once

#include <memory>
#include <vector>

#include "model/lab_source.hpp"

namespace cudalab::viewer {

int run_viewer(int argc, char** argv, std::vector<std::unique_ptr<LabSource>> labs);

}  // namespace cudalab::viewer
