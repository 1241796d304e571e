#include "cudalab/cuda_error.hpp"

#include <cstdlib>
#include <string_view>
#include <utility>

namespace cudalab {
namespace {

// __FILE__ may be an absolute build path; the file name is what a reader needs.
std::string_view file_name_only(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string format_error_message(const ErrorSite& site) {
  std::string message = site.library + " error " + site.code_name;
  if (!site.description.empty()) message += " (" + site.description + ")";
  message += " in '" + site.expression + "' at ";
  message += file_name_only(site.file);
  message += ":" + std::to_string(site.line);
  return message;
}

CudaError::CudaError(ErrorSite site)
    : std::runtime_error(format_error_message(site)), site_(std::move(site)) {}

bool sync_after_launch_requested() {
  static const bool requested = [] {
    const char* value = std::getenv("CUDALAB_SYNC_LAUNCHES");
    return value != nullptr && *value != '\0' && std::string_view(value) != "0";
  }();
  return requested;
}

}  // namespace cudalab
