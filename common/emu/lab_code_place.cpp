#include "cudalab/emu/lab_code_place.hpp"

#include <execinfo.h>

#include <cctype>

#include "engine.hpp"
#include "symbolizer.hpp"

namespace cudalab::emu {
namespace {

// "01_broadcast": two digits, an underscore, a name.
bool is_lab_folder_name(const std::string& name) {
  return name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '_';
}

// The folder names of `file`, innermost last ("a/b/c.cuh" -> {"a", "b"}).
std::vector<std::string> folders_of(const std::string& file) {
  std::vector<std::string> folders;
  std::size_t begin = 0;
  for (std::size_t slash = file.find('/'); slash != std::string::npos;
       slash = file.find('/', begin)) {
    if (slash > begin) folders.push_back(file.substr(begin, slash - begin));
    begin = slash + 1;
  }
  return folders;
}

}  // namespace

bool is_lab_code_file(const std::string& file) {
  const auto folders = folders_of(file);
  if (folders.empty() || !is_lab_folder_name(folders.back())) return false;
  if (folders.size() < 2) return true;
  const std::string& above = folders[folders.size() - 2];
  return above != "harness" && above != "tests";
}

std::string short_source_path(const std::string& file) {
  if (!is_lab_code_file(file)) return file;
  const auto folders = folders_of(file);
  // Keep the lab folder and the one above it (labs/, solutions/, tree_2/...).
  std::size_t keep = folders.size() >= 2 ? 2 : 1;
  std::size_t begin = file.size();
  for (std::size_t k = 0; k <= keep && begin != std::string::npos && begin > 0; ++k) {
    begin = file.rfind('/', begin - 1);
  }
  return begin == std::string::npos ? file : file.substr(begin + 1);
}

std::string lab_code_place(const std::vector<const void*>& return_addresses) {
  std::string innermost;
  for (const void* address : return_addresses) {
    if (address == nullptr) continue;
    // A return address points after its call: step back into the call.
    const auto place = detail::symbolize(static_cast<const char*>(address) - 1);
    if (place.file.empty() || place.line == 0) continue;
    std::string text = short_source_path(place.file) + ":" + std::to_string(place.line);
    if (!place.function.empty()) {
      std::string function = place.function;
      if (const auto paren = function.find('('); paren != std::string::npos) {
        function.erase(paren);
      }
      text += " (in " + function + ")";
    }
    if (is_lab_code_file(place.file)) return text;
    if (innermost.empty()) innermost = text;
  }
  return innermost;
}

namespace detail {

SiteRef in_lab_code(SiteRef direct) {
  if (direct && is_lab_code_file(resolve(direct).file)) return direct;
  void* frames[32];
  const int n = backtrace(frames, 32);
  for (int i = 1; i < n; ++i) {  // frame 0 is this function
    const SourcePlace place = symbolize(static_cast<const char*>(frames[i]) - 1);
    if (is_lab_code_file(place.file)) return SiteRef::at_pc(frames[i]);
  }
  return direct;
}

}  // namespace detail
}  // namespace cudalab::emu
